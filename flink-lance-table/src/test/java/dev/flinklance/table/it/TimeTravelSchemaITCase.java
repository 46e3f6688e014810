package dev.flinklance.table.it;

import static dev.flinklance.table.testing.Sql.exec;
import static dev.flinklance.table.testing.Sql.queryStrings;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.access.TableRef;
import dev.flinklance.table.testing.Sql;
import dev.flinklance.table.testing.TestCatalog;
import dev.flinklance.testing.ChangeStream;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestClusters;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.schema.ColumnAlteration;
import org.lance.schema.SqlExpressions;

/**
 * Time travel after another client added a column: the table read as it was, the added column NULL
 * in the versions before it (also with projection, filters and {@code COUNT(*)} pushed down, and in
 * a streaming read started before it), and a clear error for a NOT NULL column the version read
 * lacks; time travel before a rename and a drop.
 */
class TimeTravelSchemaITCase {
  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @TempDir Path dir;

  @AutoClose private TestCatalog catalog;

  private TableEnvironment env;
  private String table;

  /**
   * Version 2: rows 1 and 2 (tagged {@code before}); then a second client adds {@code extra}; then
   * row 3 with it.
   */
  private long before;

  private String beforeTime;

  @BeforeEach
  void openCatalog() {
    catalog = new TestCatalog(TestCatalog.Kind.DIR, dir);
    env = catalog.use(Sql.batch());
    env.getConfig().set("table.local-time-zone", "UTC");
  }

  private void createTable(String idType) throws InterruptedException {
    exec(env, "CREATE TABLE t (id " + idType + ", v STRING)");
    exec(env, "INSERT INTO t VALUES (1, 'a'), (2, 'b')");
    table = catalog.tableUri("default", "t");
    before = LanceTestTables.latestVersion(table);
    exec(env, "CALL lake.sys.create_tag('t', 'before')");
    Thread.sleep(50);
    beforeTime =
        LocalDateTime.ofInstant(Instant.now(), ZoneOffset.UTC).toString().replace('T', ' ');
    Thread.sleep(50);
  }

  /** Another client's {@code addColumns}: an SQL expression, or a column of NULLs. */
  private void addColumn(boolean nullFilled) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = new TableRef(table, Map.of()).open(allocator)) {
      if (nullFilled) {
        dataset.addColumns(
            List.of(new Field("extra", FieldType.nullable(new ArrowType.Int(64, true)), null)));
      } else {
        dataset.addColumns(
            new SqlExpressions.Builder().withExpression("extra", "id * 10").build(),
            Optional.empty());
      }
    }
    exec(env, "INSERT INTO t VALUES (3, 'c', 30)");
  }

  private String asOf() {
    return "t FOR SYSTEM_TIME AS OF TIMESTAMP '" + beforeTime + "'";
  }

  @Test
  void timeTravelReadsTheTableAsItWas() throws InterruptedException {
    createTable("BIGINT");
    addColumn(false); // nullable: id is
    assertThat(queryStrings(env, "DESCRIBE t"))
        .contains("+I[extra, BIGINT, true, null, null, null]");
    assertThat(queryStrings(env, "SELECT * FROM t"))
        .containsExactlyInAnyOrder("+I[1, a, 10]", "+I[2, b, 20]", "+I[3, c, 30]");

    // FOR SYSTEM_TIME AS OF reads the columns the table had then
    assertThat(queryStrings(env, "SELECT COUNT(*) FROM " + asOf())).containsExactly("+I[2]");
    assertThat(queryStrings(env, "SELECT * FROM " + asOf()))
        .containsExactlyInAnyOrder("+I[1, a]", "+I[2, b]");
    assertThat(queryStrings(env, "SELECT id FROM " + asOf() + " WHERE v = 'a'"))
        .containsExactly("+I[1]");
    assertThatThrownBy(() -> queryStrings(env, "SELECT extra FROM " + asOf()))
        .hasStackTraceContaining("Column 'extra' not found");

    // an older version read with the columns declared now: the added one NULL
    String version = "t /*+ OPTIONS('scan.version' = '" + before + "') */";
    assertThat(queryStrings(env, "SELECT COUNT(*) FROM " + version)).containsExactly("+I[2]");
    assertThat(queryStrings(env, "SELECT * FROM " + version))
        .containsExactlyInAnyOrder("+I[1, a, null]", "+I[2, b, null]");
    assertThat(queryStrings(env, "SELECT id, extra FROM " + version + " WHERE v = 'a'"))
        .containsExactly("+I[1, null]");
    assertThat(queryStrings(env, "SELECT id FROM " + version + " WHERE extra IS NULL"))
        .containsExactlyInAnyOrder("+I[1]", "+I[2]");
    assertThat(queryStrings(env, "SELECT id FROM " + version + " WHERE extra = 10")).isEmpty();
    String tag = "t /*+ OPTIONS('scan.tag' = 'before') */";
    assertThat(queryStrings(env, "SELECT extra, id FROM " + tag + " WHERE extra IS NULL"))
        .containsExactlyInAnyOrder("+I[null, 1]", "+I[null, 2]");
  }

  /**
   * Another client renames a column, then drops it (plain Lance): a read of the version before,
   * declared with the columns of then, reads them as they were; declared with the current ones, the
   * renamed column is an error naming its old name (never NULL, as a column added later would be),
   * and the dropped one is not read.
   */
  @Test
  void timeTravelBeforeARenameAndADrop() throws InterruptedException {
    createTable("BIGINT");
    alter(
        dataset ->
            dataset.alterColumns(List.of(new ColumnAlteration.Builder("v").rename("w").build())));
    exec(env, "INSERT INTO t VALUES (3, 'c')");
    exec(
        env,
        "CREATE TEMPORARY TABLE then_t (id BIGINT, v STRING) WITH ('connector' = 'lance', 'path'"
            + " = '"
            + table
            + "', 'scan.version' = '"
            + before
            + "')");
    assertThat(queryStrings(env, "SELECT * FROM then_t"))
        .containsExactlyInAnyOrder("+I[1, a]", "+I[2, b]");
    assertThat(queryStrings(env, "SELECT * FROM t"))
        .containsExactlyInAnyOrder("+I[1, a]", "+I[2, b]", "+I[3, c]");
    // FOR SYSTEM_TIME AS OF reads the columns of then; a read declaring the current ones fails
    assertThat(queryStrings(env, "SELECT * FROM " + asOf()))
        .containsExactlyInAnyOrder("+I[1, a]", "+I[2, b]");
    String version = "t /*+ OPTIONS('scan.version' = '" + before + "') */";
    assertThatThrownBy(() -> queryStrings(env, "SELECT * FROM " + version))
        .hasStackTraceContaining(
            "Lance table '"
                + table
                + "': column 'w' was named 'v' at version "
                + before
                + " (it was renamed later): read that version with the column declared as 'v'");

    alter(dataset -> dataset.dropColumns(List.of("w")));
    assertThat(queryStrings(env, "SELECT * FROM " + asOf()))
        .containsExactlyInAnyOrder("+I[1, a]", "+I[2, b]");
    assertThat(queryStrings(env, "SELECT * FROM " + version))
        .containsExactlyInAnyOrder("+I[1]", "+I[2]");
    assertThat(queryStrings(env, "SELECT * FROM then_t"))
        .containsExactlyInAnyOrder("+I[1, a]", "+I[2, b]");
  }

  /** Another client changes the table through plain Lance. */
  private void alter(Consumer<Dataset> change) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = new TableRef(table, Map.of()).open(allocator)) {
      change.accept(dataset);
    }
  }

  @Test
  void aStreamingReadFromAnOlderVersionReadsTheAddedColumnAsNullBeforeIt() throws Exception {
    createTable("BIGINT NOT NULL");
    addColumn(true);
    try (ChangeStream stream = streamFromVersion0(false, "WHERE extra IS NULL")) {
      assertThat(stream.take(2)).containsExactlyInAnyOrder("+I[1, a, null]", "+I[2, b, null]");
      exec(env, "INSERT INTO t VALUES (4, 'd', CAST(NULL AS BIGINT))");
      assertThat(stream.take(1)).containsExactly("+I[4, d, null]");
      assertThat(stream.more(Duration.ofMillis(500))).isEmpty();
    }
  }

  /**
   * A changelog read from before a column was added with values: the rows as they were (NULL), then
   * the version that added it as the change of every row it gave a value.
   */
  @Test
  void aChangelogFromAnOlderVersionShowsTheAddedValuesAsAChange() throws Exception {
    createTable("BIGINT");
    addColumn(false);
    try (ChangeStream stream = streamFromVersion0(true, "")) {
      assertThat(stream.take(2)).containsExactlyInAnyOrder("+I[1, a, null]", "+I[2, b, null]");
      assertThat(stream.take(4))
          .containsExactlyInAnyOrder(
              "-D[1, a, null]", "-D[2, b, null]", "+I[1, a, 10]", "+I[2, b, 20]");
      assertThat(stream.take(1)).containsExactly("+I[3, c, 30]");
      assertThat(stream.more(Duration.ofMillis(500))).isEmpty();
    }
  }

  /** {@code SELECT * FROM t ... where}, streaming from the start of the table's history. */
  private ChangeStream streamFromVersion0(boolean changelog, String where) {
    TableEnvironment streaming = catalog.use(Sql.streaming(Duration.ofMillis(200)));
    streaming.getConfig().set("parallelism.default", "1"); // slots left for an INSERT
    String hint =
        String.format(
            "/*+ OPTIONS('scan.streaming' = 'true', 'scan.changelog' = '%s',"
                + " 'scan.startup.mode' = 'version', 'scan.startup.version' = '0',"
                + " 'scan.discovery-interval' = '100 ms') */",
            changelog);
    return Sql.changes(streaming.executeSql("SELECT * FROM t " + hint + " " + where));
  }

  /**
   * A column the version read lacks cannot be NULL when declared NOT NULL (here by the catalog:
   * Lance made the added column NOT NULL, as its expression on a NOT NULL column is): an error
   * naming it and the version when the job starts; a query that does not read it is not affected.
   */
  @Test
  void aNotNullColumnTheVersionLacksIsAnError() throws InterruptedException {
    createTable("BIGINT NOT NULL");
    addColumn(false);
    assertThat(queryStrings(env, "DESCRIBE t"))
        .contains("+I[extra, BIGINT, false, null, null, null]");
    assertThat(queryStrings(env, "SELECT * FROM " + asOf()))
        .containsExactlyInAnyOrder("+I[1, a]", "+I[2, b]");
    String version = "t /*+ OPTIONS('scan.version' = '" + before + "') */";
    assertThat(queryStrings(env, "SELECT id, v FROM " + version))
        .containsExactlyInAnyOrder("+I[1, a]", "+I[2, b]");
    assertThat(queryStrings(env, "SELECT COUNT(*) FROM " + version)).containsExactly("+I[2]");
    assertThatThrownBy(() -> queryStrings(env, "SELECT * FROM " + version))
        .hasStackTraceContaining(
            "Lance table '"
                + table
                + "': column 'extra' is declared NOT NULL, but version "
                + before
                + " does not have it (it was added later), so it would read as NULL there");
  }
}
