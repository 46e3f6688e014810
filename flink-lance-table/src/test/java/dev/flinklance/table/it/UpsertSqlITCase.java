package dev.flinklance.table.it;

import static dev.flinklance.table.testing.Sql.exec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.table.testing.Sql;
import dev.flinklance.testing.Changelog;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.LanceTestTables.Commit;
import dev.flinklance.testing.OptionsDocs;
import dev.flinklance.testing.TestClusters;
import dev.flinklance.testing.TestRows;
import dev.flinklance.testing.TestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.LongStream;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Flink SQL into a Lance table with a PRIMARY KEY: a CDC-style changelog (inserts, updates, deletes
 * carrying the key only) and a GROUP BY aggregate are applied by key, one commit per checkpoint; an
 * updating query into a table without a key, and keys the table cannot take, fail at planning with
 * a message naming the table, leaving it unchanged.
 */
class UpsertSqlITCase {
  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @TempDir Path dir;

  @Test
  void aChangelogIsAppliedByKey() throws Exception {
    String path = dir.resolve("customers").toString();
    Changelog changelog = new Changelog(3_000, 200, 100).upsertsOnly();
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(3);
    env.enableCheckpointing(100);
    StreamTableEnvironment tables = StreamTableEnvironment.create(env);
    DataStream<Row> changes =
        env.fromSource(
                changelog.source(RateLimiterStrategy.perCheckpoint(300)),
                WatermarkStrategy.noWatermarks(),
                "changelog")
            .setParallelism(1)
            .map(UpsertSqlITCase::toRow)
            .setParallelism(1)
            .returns(
                Types.ROW_NAMED(
                    new String[] {"id", "name", "version"}, Types.LONG, Types.STRING, Types.LONG));
    tables.createTemporaryView(
        "cdc",
        tables.fromChangelogStream(
            changes,
            Schema.newBuilder()
                .column("id", DataTypes.BIGINT().notNull())
                .column("name", DataTypes.STRING())
                .column("version", DataTypes.BIGINT())
                .primaryKey("id")
                .build(),
            ChangelogMode.upsert()));
    tables.executeSql(
        "CREATE TABLE customers (id BIGINT, name STRING, version BIGINT, PRIMARY KEY (id) NOT"
            + " ENFORCED) WITH ('connector' = 'lance', 'path' = '"
            + path
            + "')");
    tables.executeSql("INSERT INTO customers SELECT * FROM cdc").await();

    assertThat(Changelog.tableRows(path, Map.of())).isEqualTo(changelog.model());
    List<Commit> commits = LanceTestTables.sinkCommits(path);
    assertThat(commits).hasSizeGreaterThan(3).extracting(Commit::operation).containsOnly("Update");
  }

  /**
   * Issue 28: deletes that carry the key only (an upsert source's) into a table with a NOT NULL
   * column other than the key: with Flink's NOT NULL check failing them (ERROR, the default) or
   * dropping them (DROP, which its error message advises) the deleted keys stayed.
   */
  @ParameterizedTest
  @ValueSource(strings = {"ERROR", "DROP"})
  void deletesCarryingTheKeyOnlyDeleteFromATableWithNotNullColumns(String enforcer)
      throws Exception {
    String path = dir.resolve("accounts").toString();
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(2);
    env.enableCheckpointing(100);
    StreamTableEnvironment tables = StreamTableEnvironment.create(env);
    tables.getConfig().set("table.exec.sink.not-null-enforcer", enforcer);
    DataStream<Row> changes =
        env.fromData(
                Row.ofKind(RowKind.INSERT, 1L, "ann", 10L),
                Row.ofKind(RowKind.INSERT, 2L, "bob", 20L),
                Row.ofKind(RowKind.INSERT, 3L, "cy", 30L),
                Row.ofKind(RowKind.UPDATE_AFTER, 1L, "ann", 11L),
                Row.ofKind(RowKind.DELETE, 2L, null, null),
                Row.ofKind(RowKind.DELETE, 3L, null, null),
                Row.ofKind(RowKind.INSERT, 3L, "cyd", 33L))
            .returns(
                Types.ROW_NAMED(
                    new String[] {"id", "name", "balance"}, Types.LONG, Types.STRING, Types.LONG));
    tables.createTemporaryView(
        "upserts",
        tables.fromChangelogStream(
            changes,
            Schema.newBuilder()
                .column("id", DataTypes.BIGINT().notNull())
                .column("name", DataTypes.STRING())
                .column("balance", DataTypes.BIGINT())
                .primaryKey("id")
                .build(),
            ChangelogMode.upsert()));
    tables.executeSql(
        "CREATE TABLE accounts (id BIGINT, name STRING NOT NULL, balance BIGINT NOT NULL,"
            + " PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'lance', 'path' = '"
            + path
            + "')");
    tables.executeSql("INSERT INTO accounts SELECT * FROM upserts").await();

    assertThat(LanceTestTables.readColumns(path, List.of("id", "name", "balance")))
        .extracting(row -> List.of(row.get(0), row.get(1).toString(), row.get(2)))
        .containsExactlyInAnyOrder(List.of(1L, "ann", 11L), List.of(3L, "cyd", 33L));
  }

  private static Row toRow(RowData change) {
    Row row =
        Row.ofKind(
            change.getRowKind(),
            change.getLong(0),
            change.isNullAt(1) ? null : change.getString(1).toString(),
            change.isNullAt(2) ? null : change.getLong(2));
    return row;
  }

  /** The aggregate's updates (retract or upsert) land as one row per group. */
  @Test
  void aGroupByAggregateIsUpsertedIntoAPrimaryKeyTable() {
    String path = dir.resolve("tier_counts").toString();
    TableEnvironment env = Sql.streaming(Duration.ofMillis(200));
    exec(env, generator(5_000, 1_000)); // five seconds: several checkpoints
    exec(
        env,
        "CREATE TABLE tier_counts (tier STRING, customers BIGINT, PRIMARY KEY (tier) NOT ENFORCED)"
            + " WITH ('connector' = 'lance', 'path' = '"
            + path
            + "')");
    exec(
        env,
        "INSERT INTO tier_counts SELECT CONCAT('tier-', CAST(id % 7 AS STRING)), COUNT(*)"
            + " FROM gen GROUP BY CONCAT('tier-', CAST(id % 7 AS STRING))");

    Map<String, Long> counts = new TreeMap<>();
    for (List<Object> row : LanceTestTables.readColumns(path, List.of("tier", "customers"))) {
      assertThat(counts.put(row.get(0).toString(), (Long) row.get(1))).isNull();
    }
    Map<String, Long> expected = new TreeMap<>();
    LongStream.rangeClosed(1, 5_000).forEach(id -> expected.merge("tier-" + id % 7, 1L, Long::sum));
    assertThat(counts).isEqualTo(expected);
    assertThat(LanceTestTables.sinkCommits(path))
        .as("the counts were updated over several checkpoints")
        .hasSizeGreaterThan(1);
  }

  /** The example of docs/sql.md#upserts, statement by statement, into a table of this test. */
  @Test
  void theUpsertExampleOfTheDocsRuns() throws Exception {
    String page = Files.readString(OptionsDocs.optionsPage().resolveSibling("sql.md"));
    int section = page.indexOf("### Upserts");
    int start = page.indexOf("```sql\n", section) + "```sql\n".length();
    String example = page.substring(start, page.indexOf("```", start));
    String path = dir.resolve("tier_counts").toString();
    TableEnvironment env = Sql.streaming(Duration.ofMillis(200));
    for (String statement : example.split(";\n")) {
      if (!statement.isBlank()) {
        exec(env, statement.replace("file:///tmp/tier_counts", "file://" + path));
      }
    }

    Map<String, Long> counts = new TreeMap<>();
    for (List<Object> row : LanceTestTables.readColumns(path, List.of("tier", "orders"))) {
      assertThat(counts.put(row.get(0).toString(), (Long) row.get(1)))
          .as("one row per tier")
          .isNull();
    }
    assertThat(counts.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(1_000);
  }

  @Test
  void anUpdatingQueryIntoATableWithoutAKeyFailsAtPlanning() {
    String path = dir.resolve("events").toString();
    TestTables.write(path, TestRows.ROW_TYPE, List.of(TestRows.row(1)), 1);
    long version = LanceTestTables.latestVersion(path);
    TableEnvironment env = Sql.streaming(Duration.ofMillis(200));
    exec(env, generator(100, 1_000));
    exec(
        env,
        "CREATE TABLE counts (id BIGINT NOT NULL, name STRING) WITH ('connector' = 'lance',"
            + " 'path' = '"
            + path
            + "')");

    assertThatThrownBy(
            () ->
                env.executeSql(
                    "INSERT INTO counts SELECT id % 3, CAST(COUNT(*) AS STRING) FROM gen"
                        + " GROUP BY id % 3"))
        .hasStackTraceContaining("doesn't support consuming update")
        .hasStackTraceContaining("counts");
    assertThat(LanceTestTables.latestVersion(path)).isEqualTo(version);
  }

  @Test
  void keysTheTableCannotTakeFailAtPlanning() {
    String plain = dir.resolve("plain").toString();
    TestTables.write(plain, TestRows.ROW_TYPE, List.of(TestRows.row(1)), 1);
    TableEnvironment env = Sql.batch();
    exec(env, generator(10, 1_000));

    exec(
        env,
        ddl(
            "by_score",
            "id BIGINT, score DOUBLE, PRIMARY KEY (score) NOT ENFORCED",
            dir.resolve("new").toString()));
    assertThatThrownBy(() -> env.executeSql("INSERT INTO by_score SELECT id, 1.0 FROM gen"))
        .hasStackTraceContaining("Primary key column 'score' of Lance table")
        .hasStackTraceContaining("has type DOUBLE NOT NULL, which cannot be a key");

    exec(env, ddl("by_id", "id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED", plain));
    exec(env, "INSERT INTO by_id SELECT id, 'x' FROM gen");
    assertThat(LanceTestTables.countRows(plain))
        .as("a table created without a primary key takes one")
        .isEqualTo(10);

    String keyed = dir.resolve("keyed").toString();
    exec(env, ddl("keyed", "id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED", keyed));
    exec(env, "INSERT INTO keyed SELECT id, 'x' FROM gen");
    long version = LanceTestTables.latestVersion(keyed);
    exec(
        env,
        ddl("keyed_by_name", "id BIGINT, name STRING, PRIMARY KEY (name) NOT ENFORCED", keyed));
    assertThatThrownBy(() -> env.executeSql("INSERT INTO keyed_by_name SELECT id, 'y' FROM gen"))
        .hasStackTraceContaining(
            "Lance table '"
                + keyed
                + "' has primary key (id), the sink's rows have primary key"
                + " (name)");
    exec(env, ddl("keyed_appending", "id BIGINT, name STRING", keyed));
    assertThatThrownBy(() -> env.executeSql("INSERT INTO keyed_appending SELECT id, 'y' FROM gen"))
        .hasStackTraceContaining("Lance table '" + keyed + "' has primary key (id): declare it");
    assertThat(LanceTestTables.latestVersion(keyed)).isEqualTo(version);
  }

  private static String ddl(String name, String columns, String path) {
    return "CREATE TABLE "
        + name
        + " ("
        + columns
        + ") WITH ('connector' = 'lance', 'path' = '"
        + path
        + "')";
  }

  private static String generator(int rows, int rowsPerSecond) {
    return "CREATE TEMPORARY TABLE gen (id BIGINT NOT NULL) WITH ('connector' = 'datagen',"
        + " 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '"
        + rows
        + "', 'number-of-rows' = '"
        + rows
        + "', 'rows-per-second' = '"
        + rowsPerSecond
        + "')";
  }
}
