package dev.flinklance.table.it;

import static dev.flinklance.table.testing.Sql.exec;
import static dev.flinklance.table.testing.Sql.queryStrings;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.table.testing.Sql;
import dev.flinklance.table.testing.TestCatalog;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestClusters;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.lance.namespace.LanceNamespace;
import org.lance.namespace.model.CreateNamespaceRequest;
import org.lance.namespace.model.DeclareTableRequest;
import org.lance.namespace.model.DropNamespaceRequest;
import org.lance.namespace.model.DropTableRequest;

/**
 * The Lance catalog: the statements of the catalog example, across sessions, on a warehouse, a
 * directory namespace and a REST namespace.
 */
class LanceCatalogITCase {
  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @TempDir Path dir;

  @AutoClose private TestCatalog catalog;

  private void open(TestCatalog.Kind kind) {
    catalog = new TestCatalog(kind, dir);
  }

  private TableEnvironment session() {
    return catalog.use(Sql.batch());
  }

  @ParameterizedTest
  @EnumSource(TestCatalog.Kind.class)
  void exampleStatementsAndASecondSession(TestCatalog.Kind kind) {
    open(kind);
    TableEnvironment env = session();
    exec(env, "CREATE DATABASE db");
    exec(env, "CREATE TABLE db.t (id BIGINT, v STRING)");
    String table = catalog.tableUri("db", "t");
    assertThat(LanceTestTables.exists(table)).as("an empty Lance table").isTrue();
    assertThat(LanceTestTables.countRows(table)).isZero();

    assertThat(queryStrings(env, "SHOW DATABASES")).containsExactly("+I[db]", "+I[default]");
    exec(env, "USE db");
    assertThat(queryStrings(env, "SHOW TABLES")).containsExactly("+I[t]");
    assertThat(queryStrings(env, "DESCRIBE db.t"))
        .containsExactly(
            "+I[id, BIGINT, true, null, null, null]", "+I[v, STRING, true, null, null, null]");
    exec(env, "INSERT INTO db.t VALUES (1, 'one'), (2, 'two'), (3, CAST(NULL AS STRING))");
    assertThat(queryStrings(env, "SELECT * FROM db.t"))
        .containsExactlyInAnyOrder("+I[1, one]", "+I[2, two]", "+I[3, null]");

    TableEnvironment second = session();
    assertThat(queryStrings(second, "SHOW DATABASES")).containsExactly("+I[db]", "+I[default]");
    assertThat(queryStrings(second, "SHOW TABLES FROM db")).containsExactly("+I[t]");
    assertThat(queryStrings(second, "SELECT v FROM db.t WHERE id = 2")).containsExactly("+I[two]");

    exec(env, "DROP TABLE db.t");
    assertThat(LanceTestTables.exists(table)).isFalse();
    assertThat(queryStrings(second, "SHOW TABLES FROM db")).isEmpty();
    exec(env, "USE `default`");
    exec(env, "DROP DATABASE db");
    assertThat(queryStrings(second, "SHOW DATABASES")).containsExactly("+I[default]");
    assertThat(catalog.databaseGone("db")).isTrue();
  }

  @ParameterizedTest
  @EnumSource(TestCatalog.Kind.class)
  void tableOptionsPersistInTheTableAndAlterTableSetsThem(TestCatalog.Kind kind) {
    open(kind);
    TableEnvironment env = session();
    exec(
        env,
        "CREATE TABLE docs (id BIGINT NOT NULL, embedding ARRAY<FLOAT NOT NULL>) COMMENT"
            + " 'documents' WITH ('vector-columns' = 'embedding:4', 'stable-row-ids' = 'true',"
            + " 'data-storage-version' = '2.1', 'sink.max-rows-per-file' = '100')");

    TableEnvironment second = session();
    String show = queryStrings(second, "SHOW CREATE TABLE docs").get(0);
    assertThat(show)
        .contains("COMMENT 'documents'")
        .contains("'vector-columns' = 'embedding:4'")
        .contains("'stable-row-ids' = 'true'")
        .contains("'data-storage-version' = '2.1'")
        .contains("'sink.max-rows-per-file' = '100'")
        .contains("'path' = '" + catalog.tableUri("default", "docs") + "'")
        .contains("`embedding` ARRAY<FLOAT NOT NULL>");

    exec(
        second,
        "ALTER TABLE docs SET ('sink.max-rows-per-file' = '7', 'compaction.trigger.commits' ="
            + " '5')");
    assertThat(queryStrings(session(), "SHOW CREATE TABLE docs").get(0))
        .contains("'sink.max-rows-per-file' = '7'")
        .contains("'compaction.trigger.commits' = '5'");
    exec(second, "ALTER TABLE docs RESET ('compaction.trigger.commits')");
    assertThat(queryStrings(session(), "SHOW CREATE TABLE docs").get(0))
        .doesNotContain("compaction.trigger.commits");

    exec(second, "INSERT INTO docs SELECT id, vec(id, 4) FROM (VALUES (1), (2)) AS v(id)");
    assertThat(LanceTestTables.readLongs(catalog.tableUri("default", "docs"), "id"))
        .containsExactlyInAnyOrder(1L, 2L);

    assertThatThrownBy(() -> exec(second, "ALTER TABLE docs SET ('stable-row-ids' = 'false')"))
        .hasStackTraceContaining("'stable-row-ids' shapes a Lance table when it is created");
    assertThatThrownBy(() -> exec(second, "ALTER TABLE docs SET ('no-such-option' = '1')"))
        .hasStackTraceContaining("Unsupported option 'no-such-option'");
    assertThatThrownBy(() -> exec(second, "ALTER TABLE docs SET ('compaction.x' = '1')"))
        .hasStackTraceContaining("Unsupported option 'compaction.x'");
  }

  @ParameterizedTest
  @EnumSource(TestCatalog.Kind.class)
  void ifExistsIfNotExistsAndCascade(TestCatalog.Kind kind) {
    open(kind);
    TableEnvironment env = session();
    exec(env, "CREATE DATABASE db");
    exec(env, "CREATE DATABASE IF NOT EXISTS db");
    assertThatThrownBy(() -> exec(env, "CREATE DATABASE db"))
        .hasStackTraceContaining("Database db already exists");
    exec(env, "CREATE TABLE db.t (id BIGINT)");
    exec(env, "CREATE TABLE IF NOT EXISTS db.t (other STRING)");
    assertThat(queryStrings(env, "DESCRIBE db.t")).hasSize(1).first().asString().contains("id");
    assertThatThrownBy(() -> exec(env, "CREATE TABLE db.t (id BIGINT)"))
        .hasStackTraceContaining("already exists");

    String table = catalog.tableUri("db", "t");
    long version = LanceTestTables.latestVersion(table);
    assertThatThrownBy(() -> exec(env, "DROP DATABASE db"))
        .hasStackTraceContaining("Database db in catalog lake is not empty");
    assertThat(LanceTestTables.latestVersion(table)).isEqualTo(version);

    exec(env, "DROP TABLE IF EXISTS db.nothing");
    exec(env, "DROP DATABASE IF EXISTS nothing");
    exec(env, "DROP DATABASE db CASCADE");
    assertThat(queryStrings(env, "SHOW DATABASES")).containsExactly("+I[default]");
    assertThat(catalog.databaseGone("db")).isTrue();
  }

  /**
   * A database that holds a table the catalog does not list (another engine's, under a name the
   * catalog refuses) or, in a namespace, a namespace of its own: DROP DATABASE, with or without
   * CASCADE, drops nothing and says what is in the way.
   */
  @ParameterizedTest
  @EnumSource(TestCatalog.Kind.class)
  void dropDatabaseDropsAllOrNothing(TestCatalog.Kind kind) {
    open(kind);
    TableEnvironment env = session();
    exec(env, "CREATE DATABASE db");
    exec(env, "CREATE TABLE db.t (id BIGINT, v STRING)");
    exec(env, "INSERT INTO db.t VALUES (1, 'one'), (2, 'two')");
    String theirs =
        kind == TestCatalog.Kind.WAREHOUSE
            ? catalog.root() + "/db/a..b.lance"
            : catalog
                .client()
                .declareTable(new DeclareTableRequest().id(List.of("db", "a..b")))
                .getLocation();
    TestCatalog.writeOthersTable(theirs);
    assertThat(queryStrings(env, "SHOW TABLES IN db")).containsExactly("+I[t]");

    assertThatThrownBy(() -> exec(env, "DROP DATABASE db CASCADE"))
        .hasStackTraceContaining("Database db in catalog lake is not empty")
        .hasStackTraceContaining("table 'a..b', which the catalog does not list");
    assertThat(queryStrings(env, "SELECT * FROM db.t"))
        .containsExactlyInAnyOrder("+I[1, one]", "+I[2, two]");
    assertThat(LanceTestTables.readLongs(theirs, "id")).containsExactly(7L);

    exec(env, "DROP TABLE db.t");
    assertThatThrownBy(() -> exec(env, "DROP DATABASE db"))
        .hasStackTraceContaining("table 'a..b', which the catalog does not list");
    assertThat(LanceTestTables.readLongs(theirs, "id")).containsExactly(7L);
    assertThat(queryStrings(env, "SHOW DATABASES")).containsExactly("+I[db]", "+I[default]");

    if (kind == TestCatalog.Kind.WAREHOUSE) {
      org.lance.Dataset.drop(theirs, Map.of());
    } else {
      LanceNamespace other = catalog.client();
      other.dropTable(new DropTableRequest().id(List.of("db", "a..b")));
      other.createNamespace(new CreateNamespaceRequest().id(List.of("db", "inner")));
      exec(env, "CREATE TABLE db.t (id BIGINT)");
      assertThatThrownBy(() -> exec(env, "DROP DATABASE db CASCADE"))
          .hasStackTraceContaining("namespace 'inner', which the catalog does not list");
      assertThat(queryStrings(env, "SHOW TABLES IN db")).containsExactly("+I[t]");
      other.dropNamespace(new DropNamespaceRequest().id(List.of("db", "inner")));
    }
    exec(env, "DROP DATABASE db CASCADE");
    assertThat(catalog.databaseGone("db")).isTrue();
  }

  @ParameterizedTest
  @EnumSource(TestCatalog.Kind.class)
  void refusesNamesThatLeaveTheWarehouse(TestCatalog.Kind kind) {
    open(kind);
    TableEnvironment env = session();
    for (String name : List.of("`a/b`", "`..`", "`s3:x`", "`x..y`")) {
      assertThatThrownBy(() -> exec(env, "CREATE DATABASE " + name))
          .as(name)
          .hasStackTraceContaining("Invalid Lance database name");
      assertThatThrownBy(() -> exec(env, "CREATE TABLE " + name + " (id BIGINT)"))
          .as(name)
          .hasStackTraceContaining("Invalid Lance table name");
    }
    assertThat(queryStrings(env, "SHOW DATABASES")).containsExactly("+I[default]");
    assertThat(queryStrings(env, "SHOW TABLES")).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(TestCatalog.Kind.class)
  void proceduresQuoteTableNamesWithDotsLikeFlinkSql(TestCatalog.Kind kind) {
    open(kind);
    TableEnvironment env = session();
    exec(env, "CREATE DATABASE x");
    exec(env, "CREATE TABLE x.y (id BIGINT)");
    exec(env, "CREATE TABLE `x.y` (id BIGINT)");
    exec(env, "INSERT INTO x.y VALUES (1)");
    exec(env, "INSERT INTO `x.y` VALUES (1), (2)");
    assertThat(queryStrings(env, "CALL lake.sys.create_tag('x.y', 'a')")).containsExactly("+I[2]");
    assertThat(queryStrings(env, "CALL lake.sys.create_tag('`x.y`', 'b')"))
        .containsExactly("+I[2]");
    assertThat(queryStrings(env, "CALL lake.sys.create_tag('default.`x.y`', 'c')"))
        .containsExactly("+I[2]");
    assertThat(queryStrings(env, "SELECT id FROM `x.y` /*+ OPTIONS('scan.tag' = 'c') */"))
        .containsExactlyInAnyOrder("+I[1]", "+I[2]");
    assertThat(queryStrings(env, "SELECT id FROM x.y /*+ OPTIONS('scan.tag' = 'a') */"))
        .containsExactly("+I[1]");
    assertThatThrownBy(() -> queryStrings(env, "CALL lake.sys.create_tag('default.x.y', 'd')"))
        .hasStackTraceContaining("Invalid table argument 'default.x.y': it has 3 parts")
        .hasStackTraceContaining("put backticks around a part that holds a '.'");
    assertThatThrownBy(() -> queryStrings(env, "CALL lake.sys.compact('`x.z`')"))
        .hasStackTraceContaining("Table default.`x.z` does not exist in Lance catalog lake");
  }

  /**
   * A catalog table's primary key is Lance's own (unenforced) one: every session sees it, and an
   * updating query upserts into it.
   */
  @ParameterizedTest
  @EnumSource(TestCatalog.Kind.class)
  void aPrimaryKeyTableTakesUpserts(TestCatalog.Kind kind) {
    open(kind);
    TableEnvironment env = session();
    exec(env, "CREATE TABLE tier_counts (tier STRING, n BIGINT, PRIMARY KEY (tier) NOT ENFORCED)");
    assertThat(queryStrings(session(), "SHOW CREATE TABLE tier_counts").get(0))
        .contains("PRIMARY KEY (`tier`) NOT ENFORCED")
        .contains("`tier` VARCHAR(2147483647) NOT NULL");

    TableEnvironment streaming = catalog.use(Sql.streaming(java.time.Duration.ofMillis(200)));
    exec(
        streaming,
        "INSERT INTO tier_counts SELECT tier, COUNT(*) FROM (VALUES ('gold'), ('silver'),"
            + " ('gold'), ('bronze'), ('gold')) AS c(tier) GROUP BY tier");
    assertThat(queryStrings(session(), "SELECT tier, n FROM tier_counts"))
        .containsExactlyInAnyOrder("+I[gold, 3]", "+I[silver, 1]", "+I[bronze, 1]");

    assertThatThrownBy(() -> exec(env, "CREATE TABLE bad (d DOUBLE, PRIMARY KEY (d) NOT ENFORCED)"))
        .hasStackTraceContaining("Primary key column 'd'")
        .hasStackTraceContaining("cannot be a key");
    assertThat(queryStrings(env, "SHOW TABLES")).containsExactly("+I[tier_counts]");
  }

  @ParameterizedTest
  @EnumSource(TestCatalog.Kind.class)
  void aDottedColumnIsRefusedAtCreate(TestCatalog.Kind kind) {
    open(kind);
    TableEnvironment env = session();
    assertThatThrownBy(() -> exec(env, "CREATE TABLE t (`a.b` INT)"))
        .hasStackTraceContaining(
            "Column 'a.b': a top-level Lance column name must not contain '.'");
    assertThat(queryStrings(env, "SHOW TABLES")).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(TestCatalog.Kind.class)
  void procedureTagsAVersionThatScanTagReads(TestCatalog.Kind kind) {
    open(kind);
    TableEnvironment env = session();
    exec(env, "CREATE TABLE t (id BIGINT)");
    exec(env, "INSERT INTO t VALUES (1), (2)");
    assertThat(queryStrings(env, "CALL lake.sys.create_tag('default.t', 'first')"))
        .containsExactly("+I[2]");
    exec(env, "INSERT INTO t VALUES (3)");
    assertThat(queryStrings(env, "SELECT id FROM t /*+ OPTIONS('scan.tag' = 'first') */"))
        .containsExactlyInAnyOrder("+I[1]", "+I[2]");
    assertThat(queryStrings(env, "SHOW PROCEDURES FROM lake.sys"))
        .containsExactly(
            "+I[compact]",
            "+I[create_scalar_index]",
            "+I[create_tag]",
            "+I[create_vector_index]",
            "+I[delete_tag]");
    exec(env, "CALL lake.sys.delete_tag('t', 'first')");
    assertThatThrownBy(
            () -> queryStrings(env, "SELECT id FROM t /*+ OPTIONS('scan.tag' = 'first') */"))
        .hasStackTraceContaining("cannot resolve tag 'first'");
  }

  @ParameterizedTest
  @EnumSource(TestCatalog.Kind.class)
  void forSystemTimeAsOfATimestampReadsTheVersionOfThatTime(TestCatalog.Kind kind)
      throws InterruptedException {
    open(kind);
    TableEnvironment env = session();
    env.getConfig().set("table.local-time-zone", "UTC");
    exec(env, "CREATE TABLE t (id BIGINT)");
    exec(env, "INSERT INTO t VALUES (1), (2)");
    Thread.sleep(50);
    Instant between = Instant.now();
    Thread.sleep(50);
    exec(env, "INSERT INTO t VALUES (3)");

    String asOf = LocalDateTime.ofInstant(between, ZoneOffset.UTC).toString().replace('T', ' ');
    assertThat(queryStrings(env, "SELECT id FROM t FOR SYSTEM_TIME AS OF TIMESTAMP '" + asOf + "'"))
        .containsExactlyInAnyOrder("+I[1]", "+I[2]");
    assertThat(queryStrings(env, "SELECT id FROM t"))
        .containsExactlyInAnyOrder("+I[1]", "+I[2]", "+I[3]");
    assertThatThrownBy(
            () ->
                queryStrings(
                    env, "SELECT id FROM t FOR SYSTEM_TIME AS OF TIMESTAMP '2000-01-01 00:00:00'"))
        .hasStackTraceContaining("has no version committed at or before 2000-01-01T00:00:00Z");
  }
}
