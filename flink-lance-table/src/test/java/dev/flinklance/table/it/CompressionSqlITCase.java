package dev.flinklance.table.it;

import static dev.flinklance.arrow.ColumnCompression.LEVEL_KEY;
import static dev.flinklance.arrow.ColumnCompression.SCHEME_KEY;
import static dev.flinklance.table.testing.Sql.exec;
import static dev.flinklance.table.testing.Sql.queryStrings;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.table.testing.Sql;
import dev.flinklance.table.testing.TestCatalog;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestClusters;
import java.nio.file.Path;
import java.util.Map;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The compression keys in SQL: a table's {@code WITH} options, and a catalog's CREATE TABLE, which
 * creates the Lance table with the columns' compression before any row is written and refuses to
 * change it afterwards.
 */
class CompressionSqlITCase {
  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @TempDir Path dir;

  @Test
  void withOptionsCompressTheTableTheSinkCreates() {
    String path = dir.resolve("events").toString();
    TableEnvironment env = Sql.batch();
    exec(
        env,
        "CREATE TABLE events (id BIGINT, action STRING, tags ARRAY<STRING>) WITH ('connector' ="
            + " 'lance', 'path' = '"
            + path
            + "', 'sink.compression' = 'zstd', 'sink.compression-level' = '7',"
            + " 'sink.compression.columns' = 'id:none,tags:lz4')");
    exec(
        env,
        "INSERT INTO events VALUES (1, 'view', ARRAY['a', 'b']), (2, 'click', CAST(NULL AS"
            + " ARRAY<STRING>))");

    Map<String, Map<String, String>> metadata = LanceTestTables.fieldMetadata(path);
    assertThat(metadata.get("action"))
        .containsEntry(SCHEME_KEY, "zstd")
        .containsEntry(LEVEL_KEY, "7");
    assertThat(metadata.get("tags.item")).containsEntry(SCHEME_KEY, "lz4");
    assertThat(metadata.get("id")).doesNotContainKey(SCHEME_KEY);
    assertThat(LanceTestTables.fileFormat(path)).isEqualTo("2.2");
    assertThat(queryStrings(env, "SELECT * FROM events"))
        .containsExactlyInAnyOrder("+I[1, view, [a, b]]", "+I[2, click, null]");
  }

  @Test
  void aBadValueFailsAtPlanningNamingTheOptionAndTheColumn() {
    TableEnvironment env = Sql.batch();
    exec(
        env,
        "CREATE TABLE t (id BIGINT, action STRING) WITH ('connector' = 'lance', 'path' = '"
            + dir.resolve("t")
            + "', 'sink.compression.columns' = 'action:snappy')");
    assertThatThrownBy(() -> exec(env, "INSERT INTO t VALUES (1, 'view')"))
        .hasStackTraceContaining("'sink.compression.columns'")
        .hasStackTraceContaining("column 'action'")
        .hasStackTraceContaining("'snappy'");
    assertThat(LanceTestTables.exists(dir.resolve("t").toString())).isFalse();
  }

  @Test
  void catalogCreateTableCompressesTheNewTableAndKeepsIt() throws Exception {
    try (TestCatalog catalog = new TestCatalog(TestCatalog.Kind.WAREHOUSE, dir)) {
      createCompressedAndKeepIt(catalog);
    }
  }

  private static void createCompressedAndKeepIt(TestCatalog catalog) {
    TableEnvironment env = catalog.use(Sql.batch());
    exec(
        env,
        "CREATE TABLE events (id BIGINT, action STRING) WITH ('sink.compression' = 'lz4',"
            + " 'sink.compression.columns' = 'id:zstd')");
    String table = catalog.tableUri("default", "events");
    // the empty table has the compression already: every writer's stream takes it from there
    assertThat(LanceTestTables.fieldMetadata(table).get("action")).containsEntry(SCHEME_KEY, "lz4");
    assertThat(LanceTestTables.fieldMetadata(table).get("id")).containsEntry(SCHEME_KEY, "zstd");
    assertThat(LanceTestTables.fileFormat(table)).isEqualTo("2.2"); // as the sink creates them

    exec(env, "INSERT INTO events VALUES (1, 'view'), (2, 'click')");
    assertThat(queryStrings(env, "SELECT * FROM events"))
        .containsExactlyInAnyOrder("+I[1, view]", "+I[2, click]");
    assertThat(queryStrings(catalog.use(Sql.batch()), "SHOW CREATE TABLE events").get(0))
        .contains("'sink.compression' = 'lz4'");
    assertThatThrownBy(() -> exec(env, "ALTER TABLE events SET ('sink.compression' = 'none')"))
        .hasStackTraceContaining("'sink.compression' shapes a Lance table when it is created");
    assertThat(LanceTestTables.fieldMetadata(table).get("action")).containsEntry(SCHEME_KEY, "lz4");
  }
}
