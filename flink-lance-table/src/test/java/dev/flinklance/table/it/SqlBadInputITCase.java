package dev.flinklance.table.it;

import static dev.flinklance.table.testing.Sql.exec;
import static dev.flinklance.table.testing.Sql.queryStrings;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.table.testing.Sql;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestClusters;
import dev.flinklance.testing.TestRows;
import dev.flinklance.testing.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.WriteParams;

/**
 * Bad input fails when the statement is planned, with a message naming the option, column or path,
 * and writes nothing: the table's version is unchanged.
 */
class SqlBadInputITCase {
  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @TempDir Path dir;

  private String table;
  private TableEnvironment env;

  @BeforeEach
  void setUp() {
    table = dir.resolve("events").toString();
    TestTables.write(
        table, TestRows.ROW_TYPE, LongStream.range(0, 10).mapToObj(TestRows::row).toList(), 10);
    env = Sql.batch();
  }

  private void create(String name, String columns, String options) {
    exec(
        env,
        "CREATE TABLE " + name + " (" + columns + ") WITH ('connector' = 'lance'" + options + ")");
  }

  private void assertUnchanged(long version) {
    assertThat(LanceTestTables.latestVersion(table)).isEqualTo(version);
    assertThat(LanceTestTables.countRows(table)).isEqualTo(10);
  }

  @Test
  void missingPath() {
    create("t", "id BIGINT", "");
    assertThatThrownBy(() -> queryStrings(env, "SELECT * FROM t"))
        .hasStackTraceContaining("Missing required options are:")
        .hasStackTraceContaining("path");
  }

  @Test
  void aDottedTopLevelColumnFailsAtPlanning() {
    String path = dir.resolve("dotted").toString();
    create("dotted", "`a.b` INT, s ROW<`c.d` INT>", ", 'path' = '" + path + "'");
    assertThatThrownBy(() -> env.explainSql("INSERT INTO dotted VALUES (1, ROW(2))"))
        .hasStackTraceContaining(
            "Column 'a.b': a top-level Lance column name must not contain '.'");
    assertThat(LanceTestTables.exists(path)).isFalse();

    create("nested", "a INT, s ROW<`c.d` INT>", ", 'path' = '" + path + "'");
    exec(env, "INSERT INTO nested VALUES (1, ROW(2))");
    assertThat(queryStrings(env, "SELECT a, s.`c.d` FROM nested")).containsExactly("+I[1, 2]");
  }

  @Test
  void unknownOptionListsTheValidOnes() {
    create("t", "id BIGINT", ", 'path' = '" + table + "', 'scan.versoin' = '1'");
    assertThatThrownBy(() -> queryStrings(env, "SELECT * FROM t"))
        .hasStackTraceContaining("Unsupported options found for 'lance'")
        .hasStackTraceContaining("scan.versoin")
        .hasStackTraceContaining("scan.version");
  }

  @Test
  void invalidOptionValueNamesTheOption() {
    create("t", "id BIGINT NOT NULL", ", 'path' = '" + table + "', 'scan.batch-size' = '0'");
    assertThatThrownBy(() -> queryStrings(env, "SELECT * FROM t"))
        .hasStackTraceContaining("Invalid Lance source option 'scan.batch-size'");
    create(
        "s",
        "id BIGINT NOT NULL, name STRING",
        ", 'path' = '" + table + "', 'sink.max-rows-per-file' = '-1'");
    long version = LanceTestTables.latestVersion(table);
    assertThatThrownBy(() -> exec(env, "INSERT INTO s VALUES (1, 'x')"))
        .hasStackTraceContaining("Invalid Lance sink option 'sink.max-rows-per-file'");
    assertUnchanged(version);
  }

  @Test
  void cacheLimitsAreCheckedForReadsAndWrites() {
    create(
        "limited",
        "id BIGINT NOT NULL, name STRING",
        ", 'path' = '" + table + "', 'metadata-cache-size' = '1mb', 'index-cache-size' = '4mb'");
    assertThat(queryStrings(env, "SELECT id FROM limited")).hasSize(10);
    create(
        "nothing",
        "id BIGINT NOT NULL, name STRING",
        ", 'path' = '" + table + "', 'index-cache-size' = '0'");
    long version = LanceTestTables.latestVersion(table);
    assertThatThrownBy(() -> queryStrings(env, "SELECT * FROM nothing"))
        .hasStackTraceContaining(
            "Invalid Lance table option 'index-cache-size': must be more than 0 bytes");
    assertThatThrownBy(() -> exec(env, "INSERT INTO nothing VALUES (1, 'x')"))
        .hasStackTraceContaining(
            "Invalid Lance table option 'index-cache-size': must be more than 0 bytes");
    assertUnchanged(version);
  }

  @Test
  void compactionOptionsAreCheckedLikeEveryOther() {
    create(
        "unknown_key",
        "id BIGINT NOT NULL, name STRING",
        ", 'path' = '" + table + "', 'compaction.enable' = 'true'");
    long version = LanceTestTables.latestVersion(table);
    assertThatThrownBy(() -> exec(env, "INSERT INTO unknown_key VALUES (1, 'x')"))
        .hasStackTraceContaining("Unsupported options found for 'lance'")
        .hasStackTraceContaining("compaction.enable")
        .hasStackTraceContaining("compaction.enabled");
    assertThatThrownBy(() -> queryStrings(env, "SELECT * FROM unknown_key"))
        .hasStackTraceContaining("compaction.enable");
    create(
        "invalid",
        "id BIGINT NOT NULL, name STRING",
        ", 'path' = '"
            + table
            + "', 'compaction.enabled' = 'true', 'compaction.trigger.small-fragments' = '1'");
    assertThatThrownBy(() -> exec(env, "INSERT INTO invalid VALUES (1, 'x')"))
        .hasStackTraceContaining(
            "Invalid Lance compaction option 'compaction.trigger.small-fragments': must be at"
                + " least 2");
    assertUnchanged(version);
  }

  @Test
  void selectOnAPathThatIsNotALanceTable() {
    String nothing = dir.resolve("nothing").toString();
    create("t", "id BIGINT", ", 'path' = '" + nothing + "'");
    assertThatThrownBy(() -> queryStrings(env, "SELECT * FROM t"))
        .hasStackTraceContaining("Lance table '" + nothing + "': the table does not exist");
  }

  @Test
  void declaredSchemaThatDoesNotMatchTheTable() {
    long version = LanceTestTables.latestVersion(table);
    create("missing_column", "id BIGINT NOT NULL, nope STRING", ", 'path' = '" + table + "'");
    assertThatThrownBy(() -> queryStrings(env, "SELECT * FROM missing_column"))
        .hasStackTraceContaining("Column 'nope' does not exist in the table");
    assertThatThrownBy(() -> exec(env, "INSERT INTO missing_column VALUES (1, 'x')"))
        .hasStackTraceContaining(
            "the table lacks declared columns [nope Utf8]; set 'sink.schema-evolution' ="
                + " 'add-columns' to add them");

    create("wrong_type", "id STRING NOT NULL, name STRING", ", 'path' = '" + table + "'");
    assertThatThrownBy(() -> queryStrings(env, "SELECT * FROM wrong_type"))
        .hasStackTraceContaining(
            "column 'id' is declared as STRING NOT NULL, but the table holds BIGINT NOT NULL");
    assertThatThrownBy(() -> exec(env, "INSERT INTO wrong_type VALUES ('1', 'x')"))
        .hasStackTraceContaining("Column 'id' has stream type STRING");

    create("nullable_into_not_null", "id BIGINT, name STRING", ", 'path' = '" + table + "'");
    assertThatThrownBy(() -> exec(env, "INSERT INTO nullable_into_not_null VALUES (1, 'x')"))
        .hasStackTraceContaining("Column 'id' is nullable in the stream");
    assertUnchanged(version);
  }

  @Test
  void insertOverwriteInAStreamingJob() {
    TableEnvironment streaming = Sql.streaming(Duration.ofMillis(100));
    exec(
        streaming,
        "CREATE TABLE t (id BIGINT NOT NULL, name STRING) WITH ('connector' = 'lance', 'path' = '"
            + table
            + "')");
    long version = LanceTestTables.latestVersion(table);
    assertThatThrownBy(() -> exec(streaming, "INSERT OVERWRITE t VALUES (1, 'x')"))
        .hasStackTraceContaining("INSERT OVERWRITE into Lance table")
        .hasStackTraceContaining("needs batch mode");
    assertUnchanged(version);
  }

  @Test
  void columnWithoutAFlinkTypeFailsAtPlanningNamingIt() throws Exception {
    String odd = dir.resolve("odd").toString();
    try (BufferAllocator allocator = new RootAllocator();
        Dataset ignored =
            Dataset.write()
                .allocator(allocator)
                .uri(odd)
                .schema(
                    new Schema(
                        List.of(
                            Field.nullable("id", new ArrowType.Int(64, true)),
                            Field.nullable("took", new ArrowType.Duration(TimeUnit.MILLISECOND)))))
                .mode(WriteParams.WriteMode.CREATE)
                .execute()) {
      // created
    }
    create("odd", "id BIGINT, took BIGINT", ", 'path' = '" + odd + "'");
    assertThatThrownBy(() -> queryStrings(env, "SELECT * FROM odd"))
        .hasStackTraceContaining("Column 'took' has Arrow type Duration(MILLISECOND)");
    create("odd_ids", "id BIGINT", ", 'path' = '" + odd + "'");
    assertThat(queryStrings(env, "SELECT * FROM odd_ids")).isEmpty();
  }
}
