package dev.flinklance.table.it;

import static dev.flinklance.table.testing.Sql.exec;
import static dev.flinklance.table.testing.Sql.queryStrings;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.table.testing.Sql;
import dev.flinklance.table.testing.TestCatalog;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.LogCapture;
import dev.flinklance.testing.SilentEndpoint;
import dev.flinklance.testing.TestClusters;
import dev.flinklance.testing.TestTables;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.lance.Dataset;
import org.lance.namespace.LanceNamespace;
import org.lance.namespace.model.CreateNamespaceRequest;
import org.lance.namespace.model.DeclareTableRequest;
import org.lance.namespace.model.ListNamespacesRequest;
import org.lance.namespace.model.ListTablesRequest;
import org.lance.namespace.model.RegisterTableRequest;

/**
 * What a catalog on a Lance Namespace shares with other engines (a plain {@code DirectoryNamespace}
 * or {@code RestNamespace} client stands in for lance-spark and LanceDB), how deeper namespaces map
 * to databases, bad input, secrets, and moving a first-version warehouse to a namespace.
 */
class NamespaceCatalogITCase {
  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  private static final RowType ROW =
      (RowType)
          DataTypes.ROW(
                  DataTypes.FIELD("id", DataTypes.BIGINT()),
                  DataTypes.FIELD("v", DataTypes.STRING()))
              .getLogicalType();

  @TempDir Path dir;

  @AutoClose private TestCatalog catalog;

  private TableEnvironment session(String extra) {
    return catalog.use(Sql.batch(), extra);
  }

  @ParameterizedTest
  @EnumSource(
      value = TestCatalog.Kind.class,
      names = {"DIR", "REST"})
  void tablesAreSharedWithAPlainNamespaceClientBothWays(TestCatalog.Kind kind) {
    catalog = new TestCatalog(kind, dir);
    TableEnvironment env = session("");
    exec(env, "CREATE DATABASE db COMMENT 'from flink' WITH ('owner' = 'me')");
    exec(env, "CREATE TABLE db.t (id BIGINT, v STRING)");
    exec(env, "INSERT INTO db.t VALUES (1, 'one'), (2, 'two')");

    LanceNamespace other = catalog.client();
    assertThat(other.listNamespaces(new ListNamespacesRequest().id(List.of())).getNamespaces())
        .contains("db");
    assertThat(
            other
                .describeNamespace(
                    new org.lance.namespace.model.DescribeNamespaceRequest().id(List.of("db")))
                .getProperties())
        .containsEntry("comment", "from flink")
        .containsEntry("owner", "me");
    assertThat(other.listTables(new ListTablesRequest().id(List.of("db"))).getTables())
        .containsExactly("t");
    try (BufferAllocator allocator = new RootAllocator();
        Dataset read =
            Dataset.open()
                .allocator(allocator)
                .namespaceClient(other)
                .tableId(List.of("db", "t"))
                .build()) {
      assertThat(read.countRows()).isEqualTo(2);
    }

    // The other way round: a namespace and a table made by the other engine.
    other.createNamespace(new CreateNamespaceRequest().id(List.of("theirs")));
    String location =
        other.declareTable(new DeclareTableRequest().id(List.of("theirs", "u"))).getLocation();
    TestCatalog.writeOthersTable(location);

    assertThat(queryStrings(env, "SHOW DATABASES"))
        .containsExactly("+I[db]", "+I[default]", "+I[theirs]");
    assertThat(queryStrings(env, "SHOW TABLES IN theirs")).containsExactly("+I[u]");
    assertThat(queryStrings(env, "SELECT * FROM theirs.u")).containsExactly("+I[7, seven]");
    exec(env, "INSERT INTO theirs.u VALUES (8, 'eight')");
    assertThat(LanceTestTables.countRows(location)).isEqualTo(2);
    exec(env, "DROP DATABASE theirs CASCADE");
    assertThat(catalog.databaseGone("theirs")).isTrue();
    assertThat(LanceTestTables.exists(location)).isFalse();
  }

  /**
   * Tables another engine registered: one at the location the namespace made for another table (an
   * alias), one at a place the namespace did not make. Dropping them forgets the names and keeps
   * the data (lance-core's directory namespace deletes a registered table's location); dropping the
   * table the namespace made deletes its data.
   */
  @ParameterizedTest
  @EnumSource(
      value = TestCatalog.Kind.class,
      names = {"DIR", "REST"})
  void droppingARegisteredTableKeepsTheDataItPointsAt(TestCatalog.Kind kind) {
    catalog = new TestCatalog(kind, dir);
    TableEnvironment env = session("");
    exec(env, "CREATE DATABASE db");
    exec(env, "CREATE TABLE db.t (id BIGINT, v STRING)");
    exec(env, "INSERT INTO db.t VALUES (1, 'one'), (2, 'two')");
    String location = catalog.tableUri("db", "t");
    String theirs = catalog.root() + "/elsewhere/x.lance";
    TestCatalog.writeOthersTable(theirs);
    LanceNamespace other = catalog.client();
    other.registerTable(
        new RegisterTableRequest()
            .id(List.of("db", "alias"))
            .location(location.substring(location.lastIndexOf('/') + 1)));
    other.registerTable(
        new RegisterTableRequest().id(List.of("db", "theirs")).location("elsewhere/x.lance"));
    assertThat(queryStrings(env, "SELECT * FROM db.alias"))
        .containsExactlyInAnyOrder("+I[1, one]", "+I[2, two]");

    exec(env, "DROP TABLE db.alias");
    exec(env, "DROP TABLE db.theirs");
    assertThat(queryStrings(env, "SHOW TABLES IN db")).containsExactly("+I[t]");
    assertThat(queryStrings(env, "SELECT * FROM db.t"))
        .containsExactlyInAnyOrder("+I[1, one]", "+I[2, two]");
    assertThat(LanceTestTables.readLongs(theirs, "id")).containsExactly(7L);

    // the same in a cascade: the alias is forgotten, the table the namespace made deleted
    other.registerTable(
        new RegisterTableRequest()
            .id(List.of("db", "alias"))
            .location(location.substring(location.lastIndexOf('/') + 1)));
    exec(env, "DROP DATABASE db CASCADE");
    assertThat(catalog.databaseGone("db")).isTrue();
    assertThat(LanceTestTables.exists(location)).isFalse();
    assertThat(LanceTestTables.readLongs(theirs, "id")).containsExactly(7L);
  }

  /** A table only declared (a creation that died half-way) gets its data with CREATE TABLE. */
  @Test
  void aDeclaredTableWithoutDataIsCompletedNotListedAsReadable() {
    catalog = new TestCatalog(TestCatalog.Kind.DIR, dir);
    TableEnvironment env = session("");
    exec(env, "CREATE DATABASE db");
    String location =
        catalog
            .client()
            .declareTable(new DeclareTableRequest().id(List.of("db", "half")))
            .getLocation();
    assertThatThrownBy(() -> queryStrings(env, "SELECT * FROM db.half"))
        .hasStackTraceContaining("not found");
    exec(env, "CREATE TABLE db.half (id BIGINT)");
    exec(env, "INSERT INTO db.half VALUES (1)");
    assertThat(LanceTestTables.countRows(location)).isEqualTo(1);
  }

  @Test
  void parentAndSingleLevelNamespacesMapToDatabases() {
    catalog = new TestCatalog(TestCatalog.Kind.DIR, dir);
    LanceNamespace other = catalog.client();
    other.createNamespace(new CreateNamespaceRequest().id(List.of("a")));
    other.createNamespace(new CreateNamespaceRequest().id(List.of("a", "b")));
    String nested =
        other.declareTable(new DeclareTableRequest().id(List.of("a", "b", "t"))).getLocation();
    TestTables.create(nested, ROW, Map.of());
    String rootLevel =
        other.declareTable(new DeclareTableRequest().id(List.of("rt"))).getLocation();
    TestTables.create(rootLevel, ROW, Map.of());

    TableEnvironment anchored = session(", 'parent' = 'a'");
    assertThat(queryStrings(anchored, "SHOW DATABASES")).containsExactly("+I[b]", "+I[default]");
    assertThat(queryStrings(anchored, "SHOW TABLES IN b")).containsExactly("+I[t]");
    exec(anchored, "INSERT INTO b.t VALUES (1, 'x')");
    assertThat(LanceTestTables.countRows(nested)).isEqualTo(1);

    TableEnvironment slashed = Sql.batch();
    exec(
        slashed,
        catalog.createCatalog(
            "deep", ", 'parent' = 'a/b', 'parent_delimiter' = '/', 'single_level_ns' = 'true'"));
    assertThat(queryStrings(slashed, "SHOW TABLES IN deep.`default`")).containsExactly("+I[t]");

    TableEnvironment single = session(", 'single_level_ns' = 'true'");
    assertThat(queryStrings(single, "SHOW DATABASES")).containsExactly("+I[default]");
    assertThat(queryStrings(single, "SHOW TABLES")).containsExactly("+I[rt]");
    exec(single, "CREATE TABLE mine (id BIGINT)");
    assertThat(other.listTables(new ListTablesRequest().id(List.of())).getTables())
        .contains("mine", "rt");
    assertThatThrownBy(() -> exec(single, "CREATE DATABASE x"))
        .hasStackTraceContaining("'single_level_ns' = 'true': its only database is 'default'");

    TableEnvironment bad = Sql.batch();
    exec(bad, catalog.createCatalog("bad", ", 'parent' = 'nope'"));
    exec(bad, "USE CATALOG bad");
    assertThatThrownBy(() -> queryStrings(bad, "SHOW DATABASES"))
        .hasStackTraceContaining("The parent namespace [nope] does not exist");
  }

  /**
   * A namespace's problems show at the catalog's first use (not at CREATE CATALOG, whose error
   * Flink prints with the catalog's options, header tokens included).
   */
  private static void failsAtFirstUse(String options, String... messages) {
    TableEnvironment env = Sql.batch();
    exec(env, "CREATE CATALOG c WITH ('type' = 'lance', " + options + ")");
    exec(env, "USE CATALOG c");
    var failure = assertThatThrownBy(() -> queryStrings(env, "SHOW DATABASES"));
    for (String message : messages) {
      failure.hasStackTraceContaining(message);
    }
  }

  @Test
  @Timeout(120)
  void badNamespacesFailSoonNamingTheirUri() throws Exception {
    failsAtFirstUse("'impl' = 'no.such.Namespace'", "Lance namespace 'no.such.Namespace'");
    assertThatThrownBy(() -> exec(Sql.batch(), "CREATE CATALOG c WITH ('type' = 'lance')"))
        .hasStackTraceContaining("A Lance catalog needs 'impl'");
    assertThatThrownBy(
            () -> exec(Sql.batch(), "CREATE CATALOG c WITH ('type' = 'lance', 'impl' = 'dir')"))
        .hasStackTraceContaining("'impl' = 'dir' needs 'root'");
    assertThatThrownBy(
            () ->
                exec(
                    Sql.batch(),
                    "CREATE CATALOG c WITH ('type' = 'lance', 'impl' = 'dir', 'root' ="
                        + " 'file:///x#y')"))
        .hasStackTraceContaining("must not contain '#'");

    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    String closed = "http://127.0.0.1:" + closedPort;
    failsAtFirstUse(
        "'impl' = 'rest', 'uri' = '" + closed + "'", "Lance namespace 'rest' at " + closed);

    String token = "secret-token-" + System.nanoTime();
    try (SilentEndpoint silent = new SilentEndpoint();
        LogCapture logs = LogCapture.start()) {
      String uri = "http://127.0.0.1:" + silent.port();
      TableEnvironment env = Sql.batch();
      exec(
          env,
          "CREATE CATALOG c WITH ('type' = 'lance', 'impl' = 'rest', 'uri' = '"
              + uri
              + "', 'namespace-timeout' = '2 s', 'header.Authorization' = 'Bearer "
              + token
              + "')");
      exec(env, "USE CATALOG c");
      assertThatThrownBy(() -> queryStrings(env, "SHOW DATABASES"))
          .hasStackTraceContaining("Lance namespace 'rest' at " + uri)
          .hasStackTraceContaining("got no answer within 2 s")
          .satisfies(e -> assertThat(stackTrace(e)).doesNotContain(token));
      assertThatThrownBy(() -> queryStrings(env, "SELECT * FROM db.t"))
          .hasStackTraceContaining("Lance namespace 'rest' at " + uri)
          .satisfies(e -> assertThat(stackTrace(e)).doesNotContain(token));
      assertThat(logs.text()).doesNotContain(token);
    }
  }

  @Test
  void headersReachTheServiceAndNeverShow() {
    catalog = new TestCatalog(TestCatalog.Kind.REST, dir);
    String token = "secret-token-" + System.nanoTime();
    try (LogCapture logs = LogCapture.start()) {
      TableEnvironment env =
          session(", 'header.Authorization' = 'Bearer " + token + "', 'headers.x-extra' = 'v'");
      exec(env, "CREATE TABLE t (id BIGINT)");
      exec(env, "INSERT INTO t VALUES (1)");
      assertThat(queryStrings(env, "SHOW CREATE TABLE t").get(0)).doesNotContain(token);
      // (Flink's SHOW CREATE CATALOG shows a catalog's options as they were given)
      assertThatThrownBy(() -> queryStrings(env, "SELECT * FROM nothing"))
          .satisfies(e -> assertThat(stackTrace(e)).doesNotContain(token));
      assertThat(logs.text()).doesNotContain(token);
    }
  }

  /**
   * The documented move of a first-version warehouse to a namespace: each table copied with CREATE
   * TABLE ... LIKE and INSERT ... SELECT; the warehouse stays as it was until it is dropped.
   */
  @Test
  void aWarehouseMovesToANamespaceTableByTable() {
    TestCatalog old = new TestCatalog(TestCatalog.Kind.WAREHOUSE, dir.resolve("old"));
    catalog = new TestCatalog(TestCatalog.Kind.DIR, dir.resolve("new"));
    try (old) {
      TableEnvironment env = Sql.batch();
      exec(env, old.createCatalog("wh"));
      exec(env, "CREATE DATABASE wh.db");
      exec(
          env,
          "CREATE TABLE wh.db.docs (id BIGINT, embedding ARRAY<FLOAT NOT NULL>) WITH"
              + " ('vector-columns' = 'embedding:2', 'sink.max-rows-per-file' = '10')");
      exec(env, "INSERT INTO wh.db.docs VALUES (1, ARRAY[1.0, 2.0]), (2, ARRAY[3.0, 4.0])");

      exec(env, catalog.createCatalog("lake"));
      exec(env, "CREATE DATABASE lake.db");
      exec(
          env,
          "CREATE TABLE lake.db.docs WITH ('vector-columns' = 'embedding:2',"
              + " 'sink.max-rows-per-file' = '10') LIKE wh.db.docs (EXCLUDING OPTIONS)");
      exec(env, "INSERT INTO lake.db.docs SELECT * FROM wh.db.docs");

      assertThat(queryStrings(env, "SELECT id, embedding FROM lake.db.docs"))
          .containsExactlyInAnyOrder("+I[1, [1.0, 2.0]]", "+I[2, [3.0, 4.0]]");
      assertThat(queryStrings(env, "SHOW CREATE TABLE lake.db.docs").get(0))
          .contains("'vector-columns' = 'embedding:2'");
      assertThat(LanceTestTables.countRows(old.tableUri("db", "docs"))).isEqualTo(2);
      assertThat(catalog.client().listTables(new ListTablesRequest().id(List.of("db"))).getTables())
          .containsExactly("docs");
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static String stackTrace(Throwable e) {
    java.io.StringWriter out = new java.io.StringWriter();
    e.printStackTrace(new java.io.PrintWriter(out));
    return out.toString();
  }
}
