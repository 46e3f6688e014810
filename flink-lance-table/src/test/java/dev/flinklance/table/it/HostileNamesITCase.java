package dev.flinklance.table.it;

import static dev.flinklance.table.testing.Sql.exec;
import static dev.flinklance.table.testing.Sql.queryStrings;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.store.StoragePaths;
import dev.flinklance.table.testing.Sql;
import dev.flinklance.table.testing.TestCatalog;
import dev.flinklance.testing.S3TestServer;
import dev.flinklance.testing.TestClusters;
import dev.flinklance.testing.TestFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.flink.table.api.StatementSet;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Catalog names that a URI would read as something else ({@code #}, {@code ?}, {@code %xx}, {@code
 * ..}) are refused before anything is touched, and every name the catalog accepts (spaces, unicode,
 * quotes, brackets, two spellings of one letter) is its own table: creating, listing, writing,
 * reading and dropping one leaves every other table byte for byte as it was. On a local path, a
 * {@code file://} root and an {@code s3://} one (the S3 test server), because Lance parses each
 * differently; for a warehouse, a directory namespace and a REST namespace, because each places
 * tables differently.
 */
class HostileNamesITCase {
  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();
  @RegisterExtension static final S3TestServer S3 = new S3TestServer();

  /** Each one, pasted into a URI, used to point at another place (or at the warehouse itself). */
  private static final List<String> REFUSED =
      List.of("#tmp", "q?x", "%78", "a%62", "t#1", "..", "t\tb", "x%2Fy", " lead", "a/b");

  /** Names that must each be a table of their own. */
  private static final List<String> ACCEPTED =
      List.of(
          "x", "a b", "ü名", "🙂", "é", "e\u0301", "x.y", "'q'", "[x]", "X", "x+y", "a;b", "{x}",
          "`q`", "$x", "@x", "<x>");

  /**
   * What a Lance Namespace cannot take besides: its id delimiter, characters beyond the BMP, a
   * quote (the directory namespace's drop leaves the entry); over REST a space, too.
   */
  private static List<String> notInNamespace(TestCatalog.Kind kind) {
    return switch (kind) {
      case WAREHOUSE -> List.of();
      case DIR -> List.of("$x", "🙂", "'q'");
      case REST -> List.of("$x", "🙂", "'q'", "a b");
    };
  }

  private static List<String> refused(TestCatalog.Kind kind) {
    List<String> refused = new ArrayList<>(REFUSED);
    refused.addAll(notInNamespace(kind));
    return refused;
  }

  private static List<String> accepted(TestCatalog.Kind kind) {
    List<String> accepted = new ArrayList<>(ACCEPTED);
    accepted.removeAll(notInNamespace(kind));
    return accepted;
  }

  @TempDir Path dir;

  @AutoClose private TestCatalog catalog;

  /** Every root form on every kind of catalog. */
  static Stream<Arguments> catalogs() {
    return Stream.of("plain", "file", "s3")
        .flatMap(
            form -> Arrays.stream(TestCatalog.Kind.values()).map(kind -> Arguments.of(form, kind)));
  }

  private Warehouse warehouse(String form, TestCatalog.Kind kind) {
    Path local = dir.resolve("lake");
    catalog =
        switch (form) {
          case "plain" -> new TestCatalog(kind, local.toString(), Map.of());
          case "file" -> new TestCatalog(kind, "file://" + local, Map.of());
          default -> new TestCatalog(kind, S3.newUri("lake"), S3.storageOptions());
        };
    return new Warehouse(catalog, form.equals("s3") ? null : local);
  }

  private record Warehouse(TestCatalog catalog, Path local) {
    TableEnvironment session() {
      return catalog.use(Sql.batch());
    }

    /**
     * Every file or object of the warehouse, by path, with its digest; without a namespace's
     * manifest table, which every change to the namespace rewrites.
     */
    Map<String, String> contents() {
      try {
        Map<String, String> relative = new TreeMap<>();
        if (local != null) {
          relative.putAll(TestFiles.digests(local));
        } else {
          String uri = catalog.root();
          String prefix = uri.substring(("s3://" + S3TestServer.BUCKET + "/").length()) + "/";
          // object_store percent-encodes a key's segments (a space is stored as %20)
          S3.digests(uri)
              .forEach(
                  (key, digest) ->
                      relative.put(
                          URLDecoder.decode(
                              key.substring(prefix.length()).replace("+", "%2B"),
                              StandardCharsets.UTF_8),
                          digest));
        }
        relative.keySet().removeIf(path -> path.startsWith("__manifest"));
        return relative;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /**
     * Whether a file of {@link #contents} belongs to table {@code db.t}: its directory, as Lance
     * reads the table's location (decoded) and as the namespace wrote its reservation (as given).
     */
    Predicate<String> ofTable(String database, String table) {
      if (catalog.kind() == TestCatalog.Kind.WAREHOUSE) {
        return path -> path.startsWith(database + "/" + table + ".lance/");
      }
      String location = catalog.tableUri(database, table);
      String root = catalog.root().replaceFirst("^file://", "");
      String inside =
          location.replaceFirst("^file://", "").substring(root.length()).replaceFirst("^/", "");
      String decoded = StoragePaths.percentDecoded(inside);
      return path -> path.startsWith(inside + "/") || path.startsWith(decoded + "/");
    }
  }

  private static String quoted(String name) {
    return "`" + name.replace("`", "``") + "`";
  }

  @ParameterizedTest
  @MethodSource("catalogs")
  void refusedNamesTouchNothing(String form, TestCatalog.Kind kind) {
    Warehouse warehouse = warehouse(form, kind);
    TableEnvironment env = warehouse.session();
    exec(env, "CREATE DATABASE x");
    exec(env, "CREATE DATABASE ab");
    exec(env, "CREATE TABLE x.x (id BIGINT)");
    exec(env, "CREATE TABLE ab.t (id BIGINT)");
    exec(env, "INSERT INTO x.x VALUES (1), (2)");
    exec(env, "INSERT INTO ab.t VALUES (3)");
    Map<String, String> before = warehouse.contents();

    for (String name : refused(kind)) {
      String q = quoted(name);
      List<String> statements =
          List.of(
              "CREATE DATABASE " + q,
              "CREATE TABLE x." + q + " (id BIGINT)",
              "DROP DATABASE IF EXISTS " + q + " CASCADE",
              "DROP TABLE IF EXISTS x." + q,
              "DROP TABLE IF EXISTS " + q + ".x",
              "SHOW TABLES IN " + q,
              "INSERT INTO x." + q + " VALUES (5)",
              "SELECT * FROM " + q + ".t");
      for (String statement : statements) {
        assertThatThrownBy(() -> exec(env, statement))
            .as(statement)
            .hasStackTraceContaining("Invalid Lance")
            .hasStackTraceContaining("name '" + name + "'");
      }
      assertThatThrownBy(
              () ->
                  queryStrings(
                      env, "CALL lake.sys.create_tag('x." + q.replace("'", "''") + "', 't')"))
          .as(name)
          .hasStackTraceContaining("Invalid Lance");
    }

    assertThat(warehouse.contents()).as("the warehouse, byte for byte").isEqualTo(before);
    assertThat(queryStrings(env, "SHOW DATABASES"))
        .containsExactly("+I[ab]", "+I[default]", "+I[x]");
    assertThat(queryStrings(env, "SHOW TABLES IN x")).containsExactly("+I[x]");
    assertThat(queryStrings(env, "SELECT id FROM x.x")).containsExactlyInAnyOrder("+I[1]", "+I[2]");
    assertThat(queryStrings(env, "SELECT id FROM ab.t")).containsExactly("+I[3]");
  }

  @ParameterizedTest
  @MethodSource("catalogs")
  void everyAcceptedNameIsATableOfItsOwn(String form, TestCatalog.Kind kind) {
    Warehouse warehouse = warehouse(form, kind);
    List<String> accepted = accepted(kind);
    // the database's name: a space, unless the namespace's REST client cannot send one
    String ab = accepted.contains("a b") ? "a b" : "a-b";
    String abq = quoted(ab);
    TableEnvironment env = warehouse.session();
    exec(env, "CREATE DATABASE " + abq);
    exec(env, "CREATE DATABASE " + quoted("ü名"));
    exec(env, "CREATE TABLE " + quoted("ü名") + ".t (id BIGINT, name STRING)");
    for (String name : accepted) {
      exec(env, "CREATE TABLE " + abq + "." + quoted(name) + " (id BIGINT, name STRING)");
    }
    assertThatThrownBy(() -> exec(env, "CREATE TABLE " + abq + ".`x` (id BIGINT, name STRING)"))
        .hasStackTraceContaining("already exists");

    StatementSet inserts = env.createStatementSet();
    for (int i = 0; i < accepted.size(); i++) {
      inserts.addInsertSql(
          String.format(
              "INSERT INTO " + abq + ".%s VALUES (%d, '%s')",
              quoted(accepted.get(i)),
              i,
              accepted.get(i).replace("'", "''")));
    }
    inserts.addInsertSql("INSERT INTO `ü名`.t VALUES (100, 't')");
    try {
      inserts.execute().await();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }

    assertThat(queryStrings(env, "SHOW DATABASES"))
        .containsExactlyInAnyOrder("+I[" + ab + "]", "+I[default]", "+I[ü名]");
    assertThat(queryStrings(env, "SHOW TABLES IN " + abq))
        .containsExactlyInAnyOrderElementsOf(accepted.stream().map(n -> "+I[" + n + "]").toList());
    assertThat(queryStrings(env, "SHOW TABLES IN `ü名`")).containsExactly("+I[t]");
    String everyTable =
        IntStream.range(0, accepted.size())
            .mapToObj(
                i ->
                    String.format(
                        "SELECT %d AS t, id, name FROM " + abq + ".%s", i, quoted(accepted.get(i))))
            .collect(Collectors.joining(" UNION ALL "));
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < accepted.size(); i++) {
      expected.add(String.format("+I[%d, %d, %s]", i, i, accepted.get(i)));
    }
    assertThat(queryStrings(env, everyTable)).containsExactlyInAnyOrderElementsOf(expected);

    // Dropping one table leaves every other byte where it was.
    Map<String, String> before = warehouse.contents();
    Predicate<String> dropped = warehouse.ofTable(ab, "x");
    exec(env, "DROP TABLE " + abq + ".`x`");
    Map<String, String> after = warehouse.contents();
    Map<String, String> expectedAfter = new TreeMap<>(before);
    expectedAfter.keySet().removeIf(dropped);
    assertThat(before.size()).as("the dropped table had files").isGreaterThan(expectedAfter.size());
    assertThat(after).isEqualTo(expectedAfter);
    assertThat(queryStrings(env, "SHOW TABLES IN " + abq)).hasSize(accepted.size() - 1);
    assertThat(queryStrings(env, "SELECT id FROM " + abq + ".`X`"))
        .containsExactly("+I[" + accepted.indexOf("X") + "]");

    // Dropping a database with all its tables leaves the other database and the registry's rows.
    before = warehouse.contents();
    Predicate<String> otherTable = warehouse.ofTable("ü名", "t");
    Predicate<String> droppedTables = path -> false;
    for (String name : accepted) {
      if (!name.equals("x")) {
        droppedTables = droppedTables.or(warehouse.ofTable(ab, name));
      }
    }
    exec(env, "DROP DATABASE " + abq + " CASCADE");
    after = warehouse.contents();
    Map<String, String> otherDatabase = new TreeMap<>(before);
    otherDatabase.keySet().removeIf(otherTable.negate());
    assertThat(otherDatabase).isNotEmpty();
    assertThat(after).containsAllEntriesOf(otherDatabase);
    assertThat(after.keySet()).noneMatch(droppedTables);
    if (kind == TestCatalog.Kind.WAREHOUSE) {
      assertThat(after.keySet()).noneMatch(path -> path.startsWith(ab + "/"));
    } else {
      assertThat(catalog.databaseGone(ab)).isTrue();
    }
    assertThat(queryStrings(env, "SHOW DATABASES"))
        .containsExactlyInAnyOrder("+I[default]", "+I[ü名]");
    assertThat(queryStrings(env, "SELECT id, name FROM `ü名`.t")).containsExactly("+I[100, t]");
  }
}
