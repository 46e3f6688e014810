package dev.flinklance.table.it;

import static dev.flinklance.table.testing.Sql.exec;
import static dev.flinklance.table.testing.Sql.query;
import static dev.flinklance.table.testing.Sql.queryStrings;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.store.StoragePaths;
import dev.flinklance.table.testing.Sql;
import dev.flinklance.table.testing.TestCatalog;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestClusters;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.lance.Dataset;

/**
 * {@code CALL lake.sys.compact(...)}: one compaction pass of a catalog table, and its report, on
 * every kind of Lance catalog.
 */
class CompactProcedureITCase {
  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @TempDir Path dir;

  @AutoClose private TestCatalog catalog;

  /** Table default.t, where the catalog put it. */
  private String table;

  private void open(TestCatalog.Kind kind) {
    catalog = new TestCatalog(kind, dir);
  }

  private TableEnvironment session(TableEnvironment env) {
    return catalog.use(env);
  }

  /** A table of four fragments of three rows each: ids 0..11. */
  private List<String> fourSmallFragments(TableEnvironment env, String with) {
    exec(env, "CREATE TABLE t (id BIGINT, name STRING)" + with);
    table = catalog.tableUri("default", "t");
    List<String> rows = new ArrayList<>();
    for (int fragment = 0; fragment < 4; fragment++) {
      List<String> values = new ArrayList<>();
      for (int id = fragment * 3; id < fragment * 3 + 3; id++) {
        values.add("(" + id + ", 'n" + id + "')");
        rows.add("+I[" + id + ", n" + id + "]");
      }
      exec(env, "INSERT INTO t VALUES " + String.join(", ", values));
    }
    assertThat(LanceTestTables.fragmentCount(table)).isEqualTo(4);
    return rows;
  }

  @ParameterizedTest
  @EnumSource(TestCatalog.Kind.class)
  void compactsTheTableAndReportsWhatItDid(TestCatalog.Kind kind) throws Exception {
    open(kind);
    TableEnvironment env = session(Sql.batch());
    List<String> rows = fourSmallFragments(env, "");

    TableResult result = env.executeSql("CALL lake.sys.compact('default.t')");

    assertThat(result.getResolvedSchema().getColumnNames()).isEqualTo(COLUMNS);
    List<Row> report = new ArrayList<>();
    try (CloseableIterator<Row> collected = result.collect()) {
      collected.forEachRemaining(report::add);
    }
    assertThat(report).hasSize(1);
    Row row = report.get(0);
    assertThat(field(row, "outcome")).isEqualTo("COMMITTED");
    assertThat(field(row, "table_version")).isEqualTo(LanceTestTables.latestVersion(table));
    assertThat(field(row, "fragments_before")).isEqualTo(4);
    assertThat(field(row, "fragments_after")).isEqualTo(1);
    assertThat(field(row, "fragments_rewritten")).isEqualTo(4);
    assertThat(field(row, "fragments_written")).isEqualTo(1);
    assertThat(field(row, "rows_rewritten")).isEqualTo(12L);
    assertThat((Long) field(row, "bytes_rewritten")).isPositive();
    assertThat(field(row, "lineage_bytes_spilled")).isEqualTo(0L);
    assertThat(field(row, "rewrites_preempted")).isEqualTo(0);
    assertThat(field(row, "rewrites_failed")).isEqualTo(0);
    assertThat(LanceTestTables.fragmentCount(table)).isEqualTo(1);
    assertThat(queryStrings(env, "SELECT * FROM t")).containsExactlyInAnyOrderElementsOf(rows);

    long version = LanceTestTables.latestVersion(table);
    assertThat(queryStrings(env, "CALL lake.sys.compact('t')"))
        .containsExactly("+I[NOTHING_TO_COMPACT, null, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0]");
    assertThat(LanceTestTables.latestVersion(table)).isEqualTo(version);
  }

  /** The SQL gateway's default: a streaming session runs the pass as a streaming job. */
  @ParameterizedTest
  @EnumSource(TestCatalog.Kind.class)
  void runsInAStreamingSession(TestCatalog.Kind kind) {
    open(kind);
    List<String> rows = fourSmallFragments(session(Sql.batch()), "");
    TableEnvironment streaming = session(Sql.streaming(Duration.ofSeconds(1)));

    assertThat(queryStrings(streaming, "CALL lake.sys.compact('t')"))
        .singleElement()
        .asString()
        .startsWith("+I[COMMITTED, ")
        .contains(", 4, 1, 4, 1, 12, ");
    assertThat(LanceTestTables.fragmentCount(table)).isEqualTo(1);
    assertThat(queryStrings(streaming, "SELECT * FROM t"))
        .containsExactlyInAnyOrderElementsOf(rows);
  }

  @ParameterizedTest
  @EnumSource(TestCatalog.Kind.class)
  void storedOptionsApplyAndTheCallsOptionsWin(TestCatalog.Kind kind) {
    open(kind);
    TableEnvironment env = session(Sql.batch());
    List<String> rows =
        fourSmallFragments(env, " WITH ('compaction.target-rows-per-fragment' = '6')");

    assertThat(field(query(env, "CALL lake.sys.compact('t')").get(0), "fragments_after"))
        .as("two fragments of the stored target's 6 rows")
        .isEqualTo(2);
    assertThat(versions()).isGreaterThan(2);

    List<Row> report =
        query(
            env,
            "CALL lake.sys.compact(`table` => 'default.t', options =>"
                + " 'compaction.target-rows-per-fragment=100, compaction.cleanup-older-than=0s')");

    assertThat(field(report.get(0), "fragments_before")).isEqualTo(2);
    assertThat(field(report.get(0), "fragments_after")).isEqualTo(1);
    assertThat(versions()).as("cleanup kept the latest version only").isEqualTo(1);
    assertThat(queryStrings(env, "SELECT * FROM t")).containsExactlyInAnyOrderElementsOf(rows);
  }

  @ParameterizedTest
  @EnumSource(TestCatalog.Kind.class)
  void spillsRowLineageOfStableRowIdTables(TestCatalog.Kind kind) throws IOException {
    open(kind);
    TableEnvironment env = session(Sql.batch());
    List<String> rows = fourSmallFragments(env, " WITH ('stable-row-ids' = 'true')");
    updateConfig(
        Map.of("lance.row_lineage.spill", "true", "lance.row_lineage.inline_max_bytes", "1"));

    Row report = query(env, "CALL lake.sys.compact('t')").get(0);

    assertThat(field(report, "outcome")).isEqualTo("COMMITTED");
    assertThat((Long) field(report, "lineage_bytes_spilled")).isPositive();
    try (Stream<Path> files = Files.list(StoragePaths.localPath(table))) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .anyMatch(n -> n.startsWith("_rowids-"));
    }
    assertThat(queryStrings(env, "SELECT * FROM t")).containsExactlyInAnyOrderElementsOf(rows);
  }

  @ParameterizedTest
  @EnumSource(TestCatalog.Kind.class)
  void badCallsNameTheProblemAndLeaveTheTableAlone(TestCatalog.Kind kind) {
    open(kind);
    TableEnvironment env = session(Sql.batch());
    fourSmallFragments(env, "");
    long version = LanceTestTables.latestVersion(table);

    assertThatThrownBy(() -> query(env, "CALL lake.sys.compact('t', 'compaction.target-rows=5')"))
        .hasStackTraceContaining("Unsupported option 'compaction.target-rows' for sys.compact")
        .hasStackTraceContaining("compaction.target-rows-per-fragment");
    assertThatThrownBy(
            () -> query(env, "CALL lake.sys.compact('t', 'compaction.trigger.commits=5')"))
        .hasStackTraceContaining(
            "Option 'compaction.trigger.commits' steers compaction inside a sink's job");
    assertThatThrownBy(
            () -> query(env, "CALL lake.sys.compact('t', 'compaction.target-rows-per-fragment=0')"))
        .hasStackTraceContaining(
            "Invalid Lance compaction option 'compaction.target-rows-per-fragment': must be"
                + " positive");
    assertThatThrownBy(() -> query(env, "CALL lake.sys.compact('t', 'compaction.timeout=soon')"))
        .hasStackTraceContaining("compaction.timeout");
    assertThatThrownBy(() -> query(env, "CALL lake.sys.compact('t', 'fast')"))
        .hasStackTraceContaining("key=value pairs separated by commas")
        .hasStackTraceContaining("got 'fast'");
    assertThatThrownBy(() -> query(env, "CALL lake.sys.compact('default.nothing')"))
        .hasStackTraceContaining("Table default.nothing does not exist in Lance catalog lake");

    assertThat(LanceTestTables.latestVersion(table)).isEqualTo(version);
    assertThat(LanceTestTables.fragmentCount(table)).isEqualTo(4);
  }

  /** A table config the compactor cannot use fails the call before anything runs. */
  @ParameterizedTest
  @EnumSource(TestCatalog.Kind.class)
  void anInvalidRowLineageConfigFailsTheCall(TestCatalog.Kind kind) {
    open(kind);
    TableEnvironment env = session(Sql.batch());
    fourSmallFragments(env, " WITH ('stable-row-ids' = 'true')");
    updateConfig(Map.of("lance.row_lineage.spill", "yes"));
    long version = LanceTestTables.latestVersion(table);

    assertThatThrownBy(() -> query(env, "CALL lake.sys.compact('t')"))
        .hasStackTraceContaining(
            "Lance table '"
                + table
                + "': table config 'lance.row_lineage.spill' is 'yes', expected true or false");

    assertThat(LanceTestTables.latestVersion(table)).isEqualTo(version);
    assertThat(LanceTestTables.fragmentCount(table)).isEqualTo(4);
  }

  private void updateConfig(Map<String, String> config) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open().allocator(allocator).uri(table).build()) {
      dataset.updateConfig(config);
    }
  }

  private static final List<String> COLUMNS =
      List.of(
          "outcome",
          "table_version",
          "fragments_before",
          "fragments_after",
          "fragments_rewritten",
          "fragments_written",
          "rows_rewritten",
          "bytes_rewritten",
          "lineage_bytes_spilled",
          "rewrites_preempted",
          "rewrites_failed",
          "duration_ms");

  /** Collected rows are positional. */
  private static Object field(Row row, String column) {
    return row.getField(COLUMNS.indexOf(column));
  }

  private int versions() {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open().allocator(allocator).uri(table).build()) {
      return dataset.listVersions().size();
    }
  }
}
