package dev.flinklance.table.it;

import static dev.flinklance.table.testing.Sql.exec;
import static dev.flinklance.table.testing.Sql.queryStrings;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.access.OpenTable;
import dev.flinklance.access.TableRef;
import dev.flinklance.schema.ColumnChange;
import dev.flinklance.schema.ColumnPath;
import dev.flinklance.schema.SchemaEvolution;
import dev.flinklance.table.testing.Sql;
import dev.flinklance.table.testing.TestCatalog;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.LanceTestTables.Commit;
import dev.flinklance.testing.TestClusters;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.lance.Dataset;

/**
 * ALTER TABLE on the columns of a Lance catalog table: every form, each one stamped Lance commit
 * that rewrites no data, the rows written before and after it read back exactly; DESCRIBE and SHOW
 * CREATE TABLE show the result; what Lance cannot do is refused and commits nothing.
 */
class CatalogSchemaEvolutionITCase {
  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @TempDir Path dir;

  @AutoClose private TestCatalog catalog;

  private TableEnvironment open(TestCatalog.Kind kind) {
    catalog = new TestCatalog(kind, dir);
    return catalog.use(Sql.batch());
  }

  @ParameterizedTest
  @EnumSource(
      value = TestCatalog.Kind.class,
      names = {"WAREHOUSE", "DIR"})
  void everyColumnChangeKeepsTheRows(TestCatalog.Kind kind) {
    TableEnvironment env = open(kind);
    exec(
        env,
        "CREATE TABLE t (id BIGINT, name STRING NOT NULL COMMENT 'who', score INT,"
            + " note STRING)");
    String uri = catalog.tableUri("default", "t");
    assertThat(LanceTestTables.fieldMetadata(uri).get("name"))
        .containsEntry(SchemaEvolution.COMMENT, "who");
    exec(env, "INSERT INTO t VALUES (1, 'a', 10, 'x'), (2, 'b', 20, 'y')");

    assertThat(alter(env, uri, "ALTER TABLE t ADD (email STRING COMMENT 'mail', age INT)"))
        .isEqualTo("ADD email Utf8, ADD age Int(32, true)");
    exec(env, "INSERT INTO t VALUES (3, 'c', 30, 'z', 'c@x', 33)");
    assertThat(queryStrings(env, "SELECT * FROM t"))
        .containsExactlyInAnyOrder(
            "+I[1, a, 10, x, null, null]",
            "+I[2, b, 20, y, null, null]",
            "+I[3, c, 30, z, c@x, 33]");

    assertThat(alter(env, uri, "ALTER TABLE t RENAME score TO points"))
        .isEqualTo("RENAME score TO points");
    assertThat(alter(env, uri, "ALTER TABLE t MODIFY name STRING COMMENT 'who else'"))
        .isEqualTo("COMMENT name 'who else', MODIFY name NULL");
    exec(env, "INSERT INTO t VALUES (4, CAST(NULL AS STRING), 40, 'w', 'd@x', 44)");
    assertThat(queryStrings(env, "SELECT id, name, points FROM t"))
        .containsExactlyInAnyOrder(
            "+I[1, a, 10]", "+I[2, b, 20]", "+I[3, c, 30]", "+I[4, null, 40]");

    assertThat(alter(env, uri, "ALTER TABLE t MODIFY points INT FIRST"))
        .isEqualTo("MODIFY points FIRST");
    assertThat(alter(env, uri, "ALTER TABLE t ADD flag BOOLEAN AFTER id"))
        .isEqualTo("ADD flag Bool AFTER id");
    assertThat(alter(env, uri, "ALTER TABLE t DROP (age, note)")).isEqualTo("DROP note, DROP age");
    // rows written now, into columns whose Lance field ids have gaps and another order
    exec(env, "INSERT INTO t VALUES (50, 5, true, 'e', 'e@x')");
    assertThat(queryStrings(env, "SELECT * FROM t"))
        .containsExactlyInAnyOrder(
            "+I[10, 1, null, a, null]",
            "+I[20, 2, null, b, null]",
            "+I[30, 3, null, c, c@x]",
            "+I[40, 4, null, null, d@x]",
            "+I[50, 5, true, e, e@x]");
    assertThat(queryStrings(env, "DESCRIBE t"))
        .containsExactly(
            "+I[points, INT, true, null, null, null, null]",
            "+I[id, BIGINT, true, null, null, null, null]",
            "+I[flag, BOOLEAN, true, null, null, null, null]",
            "+I[name, STRING, true, null, null, null, who else]",
            "+I[email, STRING, true, null, null, null, mail]");
    assertThat(queryStrings(env, "SHOW CREATE TABLE t").get(0))
        .contains("`name` VARCHAR(2147483647) COMMENT 'who else'")
        .contains("`email` VARCHAR(2147483647) COMMENT 'mail'");
    // another session sees what this one changed
    assertThat(queryStrings(catalog.use(Sql.batch()), "SELECT points FROM t WHERE id = 1"))
        .containsExactly("+I[10]");
  }

  @Test
  void nestedFieldsAndAVectorColumn() {
    TableEnvironment env = open(TestCatalog.Kind.DIR);
    exec(env, "CREATE TABLE d (id BIGINT, s ROW<a INT, c STRING>)");
    String uri = catalog.tableUri("default", "d");
    exec(env, "INSERT INTO d VALUES (1, ROW(1, 'one'))");

    assertThat(alter(env, uri, "ALTER TABLE d MODIFY s ROW<a INT, c STRING, b STRING>"))
        .isEqualTo("ADD s.b Utf8");
    exec(env, "INSERT INTO d VALUES (2, ROW(2, 'two', 'x'))");
    assertThat(queryStrings(env, "SELECT * FROM d"))
        .containsExactlyInAnyOrder("+I[1, +I[1, one, null]]", "+I[2, +I[2, two, x]]");

    // a vector column: its dimension first, then the column
    exec(env, "ALTER TABLE d SET ('vector-columns' = 'emb:2')");
    assertThat(alter(env, uri, "ALTER TABLE d ADD emb ARRAY<FLOAT>"))
        .isEqualTo("ADD emb FixedSizeList(2)");
    assertThat(arrowType(uri, "emb")).isEqualTo(new ArrowType.FixedSizeList(2));
    exec(
        env,
        "INSERT INTO d VALUES (3, ROW(3, 'three', 'y'),"
            + " ARRAY[CAST(0.5 AS FLOAT), CAST(1.5 AS FLOAT)])");
    assertThat(queryStrings(env, "SELECT id, emb FROM d"))
        .containsExactlyInAnyOrder("+I[1, null]", "+I[2, null]", "+I[3, [0.5, 1.5]]");
    assertThat(queryStrings(env, "SHOW CREATE TABLE d").get(0))
        .contains("'vector-columns' = 'emb:2'");

    assertThat(alter(env, uri, "ALTER TABLE d MODIFY s ROW<a INT, b STRING>"))
        .isEqualTo("DROP s.c");
    exec(
        env,
        "INSERT INTO d VALUES (4, ROW(4, 'z'), ARRAY[CAST(2.5 AS FLOAT), CAST(3.5 AS FLOAT)])");
    assertThat(queryStrings(env, "SELECT id, s, emb FROM d"))
        .containsExactlyInAnyOrder(
            "+I[1, +I[1, null], null]",
            "+I[2, +I[2, x], null]",
            "+I[3, +I[3, y], [0.5, 1.5]]",
            "+I[4, +I[4, z], [2.5, 3.5]]");

    // a comment another client wrote (Spark's field metadata key) shows as the column's comment
    try (OpenTable table = OpenTable.latest(new TableRef(uri, Map.of()))) {
      SchemaEvolution.apply(
          table,
          List.of(new ColumnChange.Comment(ColumnPath.of("id"), "written elsewhere")),
          Map.of());
    }
    assertThat(queryStrings(env, "DESCRIBE d").get(0)).endsWith(", written elsewhere]");

    long version = LanceTestTables.latestVersion(uri);
    assertThatThrownBy(() -> exec(env, "ALTER TABLE d SET ('vector-columns' = 'emb:3')"))
        .hasStackTraceContaining(
            "Option 'vector-columns' of table default.d: column 'emb' exists, a vector of"
                + " dimension 2; its entry cannot change");
    assertThatThrownBy(() -> exec(env, "ALTER TABLE d SET ('vector-columns' = 'emb:2,id:4')"))
        .hasStackTraceContaining("column 'id' exists, not a vector column");
    assertThat(LanceTestTables.latestVersion(uri)).isEqualTo(version);
  }

  @Test
  void refusedChangesCommitNothing() {
    TableEnvironment env = open(TestCatalog.Kind.DIR);
    exec(
        env,
        "CREATE TABLE r (id BIGINT NOT NULL, v INT, f FLOAT, s STRING, n INT NOT NULL,"
            + " ts TIMESTAMP(3), PRIMARY KEY (id) NOT ENFORCED)");
    String uri = catalog.tableUri("default", "r");
    exec(env, "INSERT INTO r VALUES (1, 1, 1.5, 'one', 1, TIMESTAMP '2026-12-06 10:00:00')");
    long version = LanceTestTables.latestVersion(uri);

    refused(
        env,
        "ALTER TABLE r MODIFY v BIGINT",
        "Cannot change the type of column v of table default.r from INT to BIGINT: Lance"
            + " (lance-core 7.0.0) cannot change a column's type in place. Add a column of the new"
            + " type instead");
    refused(
        env,
        "ALTER TABLE r MODIFY f DOUBLE",
        "Cannot change the type of column f of table default.r from FLOAT to DOUBLE");
    refused(
        env,
        "ALTER TABLE r MODIFY s INT",
        "Cannot change the type of column s of table default.r from STRING to INT");
    refused(
        env,
        "ALTER TABLE r MODIFY v INT NOT NULL",
        "Cannot make column v of table default.r NOT NULL");
    refused(env, "ALTER TABLE r ADD x INT NOT NULL", "is NOT NULL, and the rows the table has");
    refused(env, "ALTER TABLE r DROP id", "The column `id` is used as the primary key");
    refused(env, "ALTER TABLE r ADD c AS v + 1", "physical columns only");
    refused(env, "ALTER TABLE r ADD WATERMARK FOR ts AS ts", "physical columns only");
    refused(
        env,
        "ALTER TABLE r MODIFY s ROW<a INT>",
        "Cannot change the type of column s of table default.r from STRING to ROW<`a` INT>");
    refused(
        env,
        "ALTER TABLE r DROP PRIMARY KEY",
        "Cannot alter table default.r: the Lance catalog changes columns (ADD, DROP, RENAME,"
            + " MODIFY) and options (SET, RESET), not DropConstraint");
    assertThat(LanceTestTables.latestVersion(uri)).isEqualTo(version);
    assertThat(queryStrings(env, "SELECT * FROM r"))
        .containsExactly("+I[1, 1, 1.5, one, 1, 2026-12-06T10:00]");
  }

  /**
   * Runs an ALTER TABLE and checks it made one Lance commit, stamped.
   *
   * @return the commit's stamp: the changes in SQL words
   */
  private static String alter(TableEnvironment env, String uri, String statement) {
    long before = LanceTestTables.latestVersion(uri);
    exec(env, statement);
    List<Commit> commits = LanceTestTables.commits(uri);
    Commit last = commits.get(commits.size() - 1);
    assertThat(last.version()).as("one commit for " + statement).isEqualTo(before + 1);
    assertThat(last.operation()).isEqualTo("Project");
    return last.properties().get(SchemaEvolution.STAMP);
  }

  /**
   * The SQL sink's {@code sink.schema-evolution}: a table declared with one more column than its
   * Lance table is refused by default, and widened (one stamped commit) with {@code add-columns}.
   */
  @Test
  void anSqlSinkAddsTheColumnsItDeclaresWhenAskedTo() {
    TableEnvironment env = Sql.batch();
    String uri = dir.resolve("sql.lance").toString();
    exec(
        env,
        "CREATE TEMPORARY TABLE narrow (id BIGINT, v STRING) WITH ('connector' = 'lance', 'path'"
            + " = '"
            + uri
            + "')");
    exec(env, "INSERT INTO narrow VALUES (1, 'a')");
    String wide =
        "CREATE TEMPORARY TABLE wide (id BIGINT, v STRING, email STRING) WITH ('connector' ="
            + " 'lance', 'path' = '"
            + uri
            + "'%s)";
    exec(env, String.format(wide, ""));
    long version = LanceTestTables.latestVersion(uri);
    refused(
        env,
        "INSERT INTO wide VALUES (2, 'b', 'b@x')",
        "the table lacks declared columns [email Utf8]; set 'sink.schema-evolution' ="
            + " 'add-columns' to add them (nullable)");
    assertThat(LanceTestTables.latestVersion(uri)).isEqualTo(version);

    exec(env, "DROP TEMPORARY TABLE wide");
    exec(env, String.format(wide, ", 'sink.schema-evolution' = 'add-columns'"));
    exec(env, "INSERT INTO wide VALUES (2, 'b', 'b@x')");
    assertThat(queryStrings(env, "SELECT * FROM wide"))
        .containsExactlyInAnyOrder("+I[1, a, null]", "+I[2, b, b@x]");
    assertThat(LanceTestTables.commits(uri))
        .filteredOn(commit -> commit.properties().containsKey(SchemaEvolution.STAMP))
        .extracting(commit -> commit.properties().get(SchemaEvolution.STAMP))
        .containsExactly("ADD email Utf8");
  }

  private void refused(TableEnvironment env, String statement, String message) {
    assertThatThrownBy(() -> exec(env, statement)).as(statement).hasStackTraceContaining(message);
  }

  private static ArrowType arrowType(String uri, String column) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open().allocator(allocator).uri(uri).build()) {
      return dataset.getSchema().findField(column).getType();
    }
  }
}
