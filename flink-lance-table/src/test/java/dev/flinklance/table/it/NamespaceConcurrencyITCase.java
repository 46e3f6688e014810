package dev.flinklance.table.it;

import static dev.flinklance.table.testing.Sql.exec;
import static dev.flinklance.table.testing.Sql.queryStrings;
import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.table.testing.Sql;
import dev.flinklance.table.testing.TableTestCluster;
import dev.flinklance.table.testing.TestCatalog;
import dev.flinklance.table.testing.TestTables;
import dev.flinklance.testing.LanceTestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.lance.namespace.DirectoryNamespace;
import org.lance.namespace.errors.LanceNamespaceException;
import org.lance.namespace.model.CreateNamespaceRequest;
import org.lance.namespace.model.DeclareTableRequest;
import org.lance.namespace.model.DropTableRequest;
import org.lance.namespace.model.ListNamespacesRequest;
import org.lance.namespace.model.ListTablesRequest;

/**
 * Two Flink sessions and a plain {@code DirectoryNamespace} client (another engine, with its own
 * handle on the manifest) create and drop databases and tables in one directory namespace at the
 * same time, and race for the same table: no entry is lost, every listed table has its data, the
 * race has one winner, dropped tables are gone with their data.
 */
class NamespaceConcurrencyITCase {
  @RegisterExtension static final MiniClusterExtension CLUSTER = TableTestCluster.create();

  private static final int TABLES = 6;
  private static final RowType ROW =
      (RowType) DataTypes.ROW(DataTypes.FIELD("id", DataTypes.BIGINT())).getLogicalType();

  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(
      value = TestCatalog.Kind.class,
      names = {"DIR", "REST"})
  @Timeout(600)
  void sessionsAndAnotherEngineLoseNothing(TestCatalog.Kind kind) throws Exception {
    try (TestCatalog catalog = new TestCatalog(kind, dir);
        BufferAllocator allocator = new RootAllocator();
        DirectoryNamespace other = new DirectoryNamespace()) {
      Map<String, String> properties = new HashMap<>();
      properties.put("root", catalog.root());
      other.initialize(properties, allocator);
      TableEnvironment setup = Sql.batch();
      exec(setup, catalog.createCatalog("lake"));
      exec(setup, "CREATE DATABASE lake.shared");

      CyclicBarrier start = new CyclicBarrier(3);
      ExecutorService actors = Executors.newFixedThreadPool(3);
      List<Future<?>> done = new ArrayList<>();
      for (String session : List.of("a", "b")) {
        done.add(
            actors.submit(
                (Callable<Void>)
                    () -> {
                      TableEnvironment env = Sql.batch();
                      exec(env, catalog.createCatalog("lake"));
                      exec(env, "USE CATALOG lake");
                      start.await();
                      exec(env, "CREATE DATABASE db_" + session);
                      for (int i = 0; i < TABLES; i++) {
                        exec(env, "CREATE TABLE shared." + session + i + " (id BIGINT)");
                        exec(env, "CREATE TABLE db_" + session + ".t" + i + " (id BIGINT)");
                        exec(env, "CREATE TABLE IF NOT EXISTS shared.contested (id BIGINT)");
                        if (i % 2 == 1) {
                          exec(env, "DROP TABLE shared." + session + (i - 1));
                        }
                      }
                      return null;
                    }));
      }
      done.add(
          actors.submit(
              (Callable<Void>)
                  () -> {
                    start.await();
                    other.createNamespace(new CreateNamespaceRequest().id(List.of("db_c")));
                    for (int i = 0; i < TABLES; i++) {
                      for (List<String> id :
                          List.of(List.of("shared", "c" + i), List.of("db_c", "t" + i))) {
                        String location =
                            other.declareTable(new DeclareTableRequest().id(id)).getLocation();
                        TestTables.create(location, ROW, Map.of());
                      }
                      try {
                        String location =
                            other
                                .declareTable(
                                    new DeclareTableRequest().id(List.of("shared", "contested")))
                                .getLocation();
                        TestTables.create(location, ROW, Map.of());
                      } catch (LanceNamespaceException e) {
                        // lost the race (TableAlreadyExists, or an InternalException saying so)
                      }
                      if (i % 2 == 1) {
                        other.dropTable(
                            new DropTableRequest().id(List.of("shared", "c" + (i - 1))));
                      }
                    }
                    return null;
                  }));
      for (Future<?> actor : done) {
        actor.get(300, TimeUnit.SECONDS);
      }
      actors.shutdown();

      TreeSet<String> expected = new TreeSet<>(List.of("contested"));
      for (String actor : List.of("a", "b", "c")) {
        for (int i = 1; i < TABLES; i += 2) {
          expected.add(actor + i);
        }
      }
      TableEnvironment env = Sql.batch();
      exec(env, catalog.createCatalog("lake"));
      exec(env, "USE CATALOG lake");
      assertThat(queryStrings(env, "SHOW DATABASES"))
          .containsExactly("+I[db_a]", "+I[db_b]", "+I[db_c]", "+I[default]", "+I[shared]");
      assertThat(other.listNamespaces(new ListNamespacesRequest().id(List.of())).getNamespaces())
          .containsExactlyInAnyOrder("db_a", "db_b", "db_c", "shared");
      assertThat(queryStrings(env, "SHOW TABLES IN shared"))
          .containsExactlyElementsOf(expected.stream().map(t -> "+I[" + t + "]").toList());
      for (String actor : List.of("a", "b", "c")) {
        assertThat(other.listTables(new ListTablesRequest().id(List.of("db_" + actor))).getTables())
            .hasSize(TABLES);
      }
      for (String table : expected) {
        assertThat(LanceTestTables.exists(catalog.tableUri("shared", table)))
            .as("table %s has its data", table)
            .isTrue();
        exec(env, "INSERT INTO shared." + table + " VALUES (1)");
      }
    }
  }
}
