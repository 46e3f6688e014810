package dev.flinklance.table.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.table.testing.Sql;
import dev.flinklance.testing.Await;
import dev.flinklance.testing.ChangeStream;
import dev.flinklance.testing.Failures;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestClusters;
import dev.flinklance.testing.TestRows;
import dev.flinklance.testing.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.LongStream;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Streaming reads from Flink SQL: hints, table and catalog options, changelogs, pipelines. */
@Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class StreamingSqlITCase {
  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  private static final Duration WAIT = Duration.ofSeconds(120);

  @TempDir Path dir;

  private String table;

  private void createTable(long rows) {
    table = dir.resolve("events").toString();
    TestTables.create(table, TestRows.ROW_TYPE, Map.of());
    append(0, rows);
  }

  private void append(long from, long to) {
    TestTables.append(
        table, TestRows.ROW_TYPE, LongStream.range(from, to).mapToObj(TestRows::row).toList(), 5);
  }

  private static List<String> rows(String kind, long from, long to) {
    return LongStream.range(from, to)
        .mapToObj(id -> kind + "[" + id + ", name-" + id + "]")
        .toList();
  }

  private TableEnvironment streamingSql(String extraColumns, String options) {
    TableEnvironment env = Sql.streaming(Duration.ofMillis(200));
    Sql.exec(
        env,
        String.format(
            "CREATE TABLE events (id BIGINT NOT NULL, name STRING%s) WITH ('connector' = 'lance',"
                + " 'path' = '%s', 'scan.discovery-interval' = '100ms'%s)",
            extraColumns, table, options));
    return env;
  }

  /**
   * The table's options tune streaming reads (scan.discovery-interval) and a query's hint asks for
   * one; without the hint the query reads one version and ends.
   */
  @Test
  void aHintTurnsAQueryIntoAStreamingRead() throws Exception {
    createTable(10);
    TableEnvironment env = streamingSql("", ", 'scan.changelog' = 'true'");
    assertThat(Sql.queryStrings(env, "SELECT id FROM events WHERE id < 3"))
        .containsExactlyInAnyOrder("+I[0]", "+I[1]", "+I[2]");
    TableResult result =
        env.executeSql(
            "SELECT id, name FROM events /*+ OPTIONS('scan.streaming' = 'true',"
                + " 'scan.changelog' = 'false', 'scan.startup.mode' = 'version',"
                + " 'scan.startup.version' = '0') */"
                + " WHERE id % 2 = 0");
    try (ChangeStream stream = Sql.changes(result)) {
      assertThat(stream.take(5))
          .containsExactlyInAnyOrder(
              "+I[0, name-0]", "+I[2, name-2]", "+I[4, name-4]", "+I[6, name-6]", "+I[8, name-8]");
      append(10, 14);
      assertThat(stream.take(2)).containsExactlyInAnyOrder("+I[10, name-10]", "+I[12, name-12]");
      assertThat(stream.more(Duration.ofMillis(500))).isEmpty();
    }
  }

  /**
   * A table declared with a primary key and read as a changelog: Lance's upsert shows as -U/+U
   * pairs by that key, deletes as -D, and Flink's aggregation over it follows the table.
   */
  @Test
  void aChangelogTableWithAPrimaryKey() throws Exception {
    createTable(6);
    TableEnvironment env =
        streamingSql(
            ", PRIMARY KEY (id) NOT ENFORCED",
            ", 'scan.streaming' = 'true', 'scan.changelog' = 'true'");
    try (ChangeStream changes = Sql.changes(env.executeSql("SELECT * FROM events"))) {
      assertThat(changes.take(6)).containsExactlyInAnyOrderElementsOf(rows("+I", 0, 6));
      TestTables.upsert(
          table,
          TestRows.ROW_TYPE,
          "id",
          List.<RowData>of(
              GenericRowData.of(2L, StringData.fromString("two")),
              GenericRowData.of(9L, StringData.fromString("nine"))));
      List<String> upsert = changes.take(3);
      assertThat(upsert.get(0)).isEqualTo("-U[2, name-2]");
      assertThat(upsert.subList(1, 3)).containsExactlyInAnyOrder("+U[2, two]", "+I[9, nine]");
      TestTables.delete(table, "id < 2");
      assertThat(changes.take(2)).containsExactlyInAnyOrderElementsOf(rows("-D", 0, 2));
    }
  }

  @Test
  void anAggregationOverAChangelogFollowsTheTable() throws Exception {
    createTable(20);
    TableEnvironment env =
        streamingSql("", ", 'scan.streaming' = 'true', 'scan.changelog' = 'true'");
    TableResult result = env.executeSql("SELECT COUNT(*) FROM events WHERE id >= 5");
    try (ChangeStream counts = Sql.changes(result)) {
      counts.takeUntil(rows -> !rows.isEmpty() && rows.get(rows.size() - 1).equals("+U[15]"));
      TestTables.delete(table, "id % 2 = 0");
      counts.takeUntil(rows -> !rows.isEmpty() && rows.get(rows.size() - 1).equals("+U[8]"));
    }
  }

  /** Lance to Flink to Lance in SQL, through a failure: the copy holds each row once. */
  @Test
  void insertsAStreamIntoAnotherLanceTable() throws Exception {
    createTable(100);
    String copy = dir.resolve("copy").toString();
    String token = UUID.randomUUID().toString();
    TableEnvironment env = streamingSql("", ", 'scan.streaming' = 'true'");
    Sql.restartOnce(env);
    Sql.exec(
        env,
        String.format(
            "CREATE TABLE copy (id BIGINT NOT NULL, name STRING) WITH ('connector' = 'lance',"
                + " 'path' = '%s')",
            copy));
    TableResult insert =
        env.executeSql(
            String.format(
                "INSERT INTO copy SELECT fail_once('%s', id, 150), name FROM events", token));
    JobClient job = insert.getJobClient().orElseThrow();
    Await.until("the table's rows in the copy", WAIT, job, () -> rowsIn(copy) >= 100);
    append(100, 200);
    Await.until("the appended rows in the copy", WAIT, job, () -> rowsIn(copy) >= 200);
    Await.cancel(job, WAIT);

    assertThat(Failures.fired(token)).isTrue();
    assertThat(LanceTestTables.readLongs(copy, "id"))
        .containsExactlyInAnyOrderElementsOf(LongStream.range(0, 200).boxed().toList());
  }

  /** A catalog table keeps the streaming keys in its options, as any table option. */
  @Test
  void aCatalogTableStreamsByItsOptions() throws Exception {
    TableEnvironment env = Sql.streaming(Duration.ofMillis(200));
    Sql.exec(
        env,
        String.format(
            "CREATE CATALOG lake WITH ('type' = 'lance', 'warehouse' = '%s')",
            dir.resolve("lake")));
    Sql.exec(
        env,
        "CREATE TABLE lake.`default`.events (id BIGINT NOT NULL, name STRING) WITH"
            + " ('scan.streaming' = 'true', 'scan.startup.mode' = 'version',"
            + " 'scan.startup.version' = '0', 'scan.discovery-interval' = '100ms')");
    Sql.exec(env, "INSERT INTO lake.`default`.events VALUES (1, 'a')");
    try (ChangeStream stream = Sql.changes(env.executeSql("SELECT * FROM lake.`default`.events"))) {
      assertThat(stream.take(1)).containsExactly("+I[1, a]");
      // the reading job holds every slot: another writer than a Flink job
      TestTables.append(
          dir.resolve("lake/default/events.lance").toString(),
          TestRows.ROW_TYPE,
          List.of(TestRows.row(2)),
          1);
      assertThat(stream.take(1)).containsExactly("+I[2, name-2]");
    }
  }

  @Test
  void sourceParallelism() {
    createTable(5);
    TableEnvironment env = streamingSql(", PRIMARY KEY (id) NOT ENFORCED", "");
    String parallel =
        env.explainSql(
            "SELECT * FROM events /*+ OPTIONS('scan.streaming' = 'true',"
                + " 'scan.parallelism' = '3') */",
            ExplainDetail.JSON_EXECUTION_PLAN);
    assertThat(parallel).contains("\"parallelism\" : 3");
    String changelog =
        env.explainSql(
            "SELECT * FROM events /*+ OPTIONS('scan.streaming' = 'true', 'scan.changelog' ="
                + " 'true', 'scan.parallelism' = '1') */",
            ExplainDetail.CHANGELOG_MODE);
    assertThat(changelog).contains("changelogMode=[I,UB,UA,D]");
  }

  @Test
  void badStreamingOptionsFailAtPlanningNamingTheOption() {
    createTable(5);
    TableEnvironment env = streamingSql("", "");
    assertPlanningFails(
        env,
        "'scan.startup.mode' = 'timestamp'",
        "Invalid Lance source option 'scan.startup.timestamp-millis': must be set with"
            + " 'scan.startup.mode' = 'timestamp'");
    assertPlanningFails(
        env,
        "'scan.streaming' = 'true', 'scan.changelog' = 'true', 'scan.parallelism' = '2'",
        "Invalid Lance source option 'scan.parallelism': with 'scan.changelog' = 'true' it needs"
            + " the table's PRIMARY KEY");
    assertPlanningFails(
        env,
        "'scan.streaming' = 'true', 'scan.startup.mode' = 'version'",
        "Invalid Lance source option 'scan.startup.version': must be set with"
            + " 'scan.startup.mode' = 'version'");
    assertPlanningFails(
        env,
        "'scan.streaming' = 'true', 'scan.on-overwrite' = 'changelog'",
        "Invalid Lance source option 'scan.on-overwrite': 'changelog' needs 'scan.changelog' ="
            + " 'true'");
    assertPlanningFails(
        env,
        "'scan.streaming' = 'true', 'scan.version' = '1'",
        "'scan.version': reads one version");
    assertPlanningFails(
        env, "'scan.streaming' = 'true', 'scan.startup.mode' = 'sometime'", "scan.startup.mode");
  }

  private static void assertPlanningFails(TableEnvironment env, String hint, String message) {
    assertThatThrownBy(() -> env.explainSql("SELECT * FROM events /*+ OPTIONS(" + hint + ") */"))
        .isInstanceOf(ValidationException.class)
        .satisfies(e -> assertThat(ExceptionUtils.stringifyException(e)).contains(message));
  }

  private static long rowsIn(String table) {
    return LanceTestTables.hasVersion(table) ? LanceTestTables.countRows(table) : 0;
  }
}
