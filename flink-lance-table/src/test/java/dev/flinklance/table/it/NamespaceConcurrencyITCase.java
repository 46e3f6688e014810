package dev.flinklance.table.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.table.testing.TestCatalog;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.catalog.Catalog;
import org.apache.flink.table.catalog.CatalogDatabaseImpl;
import org.apache.flink.table.catalog.CatalogTable;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ObjectPath;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.catalog.exceptions.TableAlreadyExistException;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.lance.namespace.DirectoryNamespace;
import org.lance.namespace.errors.InternalException;
import org.lance.namespace.errors.NamespaceAlreadyExistsException;
import org.lance.namespace.errors.TableAlreadyExistsException;
import org.lance.namespace.model.CreateNamespaceRequest;
import org.lance.namespace.model.DeclareTableRequest;
import org.lance.namespace.model.DropNamespaceRequest;
import org.lance.namespace.model.DropTableRequest;
import org.lance.namespace.model.ListNamespacesRequest;
import org.lance.namespace.model.ListTablesRequest;

/**
 * Two catalog sessions (each with its own namespace client, as two Flink sessions in two JVMs have)
 * and a plain {@code DirectoryNamespace} client on the same root (another engine) create and drop
 * databases and tables at the same time, each its own and all of them the same contested names,
 * through the {@link Catalog} API: every call succeeds or fails with Flink's "already exists";
 * afterwards every entry created is listed exactly once and is a complete Lance table of the
 * declared schema, every dropped one is gone.
 */
class NamespaceConcurrencyITCase {
  private static final int ROUNDS = 6;
  private static final List<String> SESSIONS = List.of("a", "b");
  private static final String ENGINE = "c";
  private static final ResolvedSchema SCHEMA =
      ResolvedSchema.of(
          Column.physical("id", DataTypes.BIGINT()), Column.physical("v", DataTypes.STRING()));
  private static final RowType ROW = (RowType) SCHEMA.toPhysicalRowDataType().getLogicalType();

  @TempDir Path dir;

  /** Every actor starts each round's contested calls at the same time. */
  private final CyclicBarrier round = new CyclicBarrier(SESSIONS.size() + 1);

  private final List<Throwable> failed = Collections.synchronizedList(new ArrayList<>());
  private final List<Throwable> refused = Collections.synchronizedList(new ArrayList<>());

  @ParameterizedTest
  @EnumSource(
      value = TestCatalog.Kind.class,
      names = {"DIR", "REST"})
  @Timeout(300)
  void sessionsAndAnotherEngineLoseNothing(TestCatalog.Kind kind) throws Exception {
    try (TestCatalog catalog = new TestCatalog(kind, dir);
        BufferAllocator allocator = new RootAllocator();
        DirectoryNamespace engine = new DirectoryNamespace()) {
      engine.initialize(new HashMap<>(Map.of("root", catalog.root())), allocator);
      Catalog setup = session(catalog, "60 s");
      setup.createDatabase("shared", database(), false);

      ExecutorService actors = Executors.newFixedThreadPool(SESSIONS.size() + 1);
      List<Future<?>> done = new ArrayList<>();
      for (int s = 0; s < SESSIONS.size(); s++) {
        // a timeout of its own makes it another connection, hence another namespace client
        Catalog session = session(catalog, (30 + s) + " s");
        String me = SESSIONS.get(s);
        boolean ignoreIfExists = s == 0;
        done.add(actors.submit(actor(() -> runSession(session, me, ignoreIfExists))));
      }
      done.add(actors.submit(actor(() -> runEngine(engine))));
      actors.shutdown();
      // every actor ends before the namespace is closed: lance-core crashes the JVM when a
      // DirectoryNamespace is closed during a call
      boolean ended = actors.awaitTermination(240, TimeUnit.SECONDS);
      if (!failed.isEmpty()) {
        throw new AssertionError("An actor failed", failed.get(0));
      }
      assertThat(ended).isTrue();
      for (Future<?> actor : done) {
        actor.get();
      }

      assertThat(refused)
          .as("the only failures are a lost race for a contested table, said as such")
          .allMatch(e -> e instanceof TableAlreadyExistException);
      Catalog after = session(catalog, "60 s");
      TreeSet<String> databases = new TreeSet<>(List.of("default", "shared"));
      TreeSet<String> shared = new TreeSet<>();
      TreeSet<String> defaults = new TreeSet<>();
      for (int i = 0; i < ROUNDS; i++) {
        databases.add("contested_" + i);
        shared.add("contested_" + i);
      }
      for (String actor : List.of("a", "b", ENGINE)) {
        for (int i = 1; i < ROUNDS; i += 2) {
          databases.add("db_" + actor + "_" + i);
          shared.add(actor + "_" + i);
          if (!actor.equals(ENGINE)) {
            defaults.add(actor + "_" + i);
          }
        }
      }
      assertThat(after.listDatabases()).containsExactlyElementsOf(databases);
      assertThat(engine.listNamespaces(new ListNamespacesRequest().id(List.of())).getNamespaces())
          .containsExactlyInAnyOrderElementsOf(databases);
      assertThat(after.listTables("shared")).containsExactlyElementsOf(shared);
      assertThat(engine.listTables(new ListTablesRequest().id(List.of("shared"))).getTables())
          .containsExactlyInAnyOrderElementsOf(shared);
      assertThat(after.listTables("default")).containsExactlyElementsOf(defaults);
      for (String database : databases) {
        if (database.startsWith("db_")) {
          assertThat(after.listTables(database)).as(database).containsExactly("t");
        } else if (database.startsWith("contested_")) {
          assertThat(after.listTables(database)).as(database).isEmpty();
        }
      }
      for (String database : databases) {
        for (String table : after.listTables(database)) {
          ObjectPath path = new ObjectPath(database, table);
          assertThat(after.tableExists(path)).as("%s has its data", path).isTrue();
          assertThat(columns((CatalogTable) after.getTable(path)))
              .as("%s is the table declared", path)
              .containsExactly("id BIGINT", "v STRING");
          assertThat(LanceTestTables.exists(catalog.tableUri(database, table))).isTrue();
        }
      }
      for (String actor : List.of("a", "b", ENGINE)) {
        for (int i = 0; i < ROUNDS; i += 2) {
          assertThat(catalog.databaseGone("db_" + actor + "_" + i)).isTrue();
          assertThat(after.tableExists(new ObjectPath("shared", actor + "_" + i))).isFalse();
        }
      }
    }
  }

  private interface Actor {
    void run() throws Exception;
  }

  /** An actor that fails breaks the round barrier, so that the others end too (or time out). */
  private Callable<Void> actor(Actor actor) {
    return () -> {
      try {
        actor.run();
        return null;
      } catch (Exception | AssertionError e) {
        if (!(e instanceof TimeoutException || e instanceof BrokenBarrierException)) {
          failed.add(e);
        }
        round.reset();
        throw e;
      }
    };
  }

  private void runSession(Catalog session, String me, boolean ignoreIfExists) throws Exception {
    for (int i = 0; i < ROUNDS; i++) {
      String own = "db_" + me + "_" + i;
      session.createDatabase(own, database(), false);
      session.createTable(new ObjectPath(own, "t"), table(), false);
      session.createTable(new ObjectPath("shared", me + "_" + i), table(), false);
      round.await(60, TimeUnit.SECONDS);
      session.createDatabase("contested_" + i, database(), true);
      // the first table of the default database creates its namespace: both sessions race for it
      session.createTable(new ObjectPath("default", me + "_" + i), table(), false);
      try {
        session.createTable(new ObjectPath("shared", "contested_" + i), table(), ignoreIfExists);
      } catch (TableAlreadyExistException e) {
        refused.add(e);
      }
      if (i % 2 == 1) {
        String old = "db_" + me + "_" + (i - 1);
        session.dropTable(new ObjectPath(old, "t"), false);
        session.dropDatabase(old, false, false);
        session.dropTable(new ObjectPath("shared", me + "_" + (i - 1)), false);
        session.dropTable(new ObjectPath("default", me + "_" + (i - 1)), false);
      }
    }
  }

  /** What another engine does on the same root, with lance-core's own client. */
  private void runEngine(DirectoryNamespace engine) throws Exception {
    for (int i = 0; i < ROUNDS; i++) {
      String own = "db_" + ENGINE + "_" + i;
      engine.createNamespace(new CreateNamespaceRequest().id(List.of(own)));
      create(engine, List.of(own, "t"));
      create(engine, List.of("shared", ENGINE + "_" + i));
      round.await(60, TimeUnit.SECONDS);
      try {
        engine.createNamespace(new CreateNamespaceRequest().id(List.of("contested_" + i)));
      } catch (NamespaceAlreadyExistsException | InternalException e) {
        // lost the race (lance-core 7.0.0 may say so with an InternalException)
      }
      try {
        create(engine, List.of("shared", "contested_" + i));
      } catch (TableAlreadyExistsException | InternalException e) {
        // lost the race for the name
      } catch (RuntimeException e) {
        // won the name, but a session created the table there first (it may: see LanceCatalog)
        assertThat(String.valueOf(e.getMessage())).contains("already exists");
      }
      if (i % 2 == 1) {
        String old = "db_" + ENGINE + "_" + (i - 1);
        engine.dropTable(new DropTableRequest().id(List.of(old, "t")));
        engine.dropNamespace(new DropNamespaceRequest().id(List.of(old)));
        engine.dropTable(new DropTableRequest().id(List.of("shared", ENGINE + "_" + (i - 1))));
      }
    }
  }

  private static void create(DirectoryNamespace engine, List<String> id) {
    String location = engine.declareTable(new DeclareTableRequest().id(id)).getLocation();
    TestTables.create(location, ROW, Map.of());
  }

  private static Catalog session(TestCatalog catalog, String timeout) {
    Map<String, String> options = new HashMap<>(catalog.catalogOptions());
    options.put("namespace-timeout", timeout);
    Catalog session =
        FactoryUtil.createCatalog(
            "lake",
            options,
            new Configuration(),
            NamespaceConcurrencyITCase.class.getClassLoader());
    session.open();
    return session;
  }

  private static CatalogDatabaseImpl database() {
    return new CatalogDatabaseImpl(Map.of(), null);
  }

  private static ResolvedCatalogTable table() {
    return new ResolvedCatalogTable(
        CatalogTable.newBuilder()
            .schema(Schema.newBuilder().fromResolvedSchema(SCHEMA).build())
            .options(Map.of())
            .build(),
        SCHEMA);
  }

  private static List<String> columns(CatalogTable table) {
    return table.getUnresolvedSchema().getColumns().stream()
        .map(
            column ->
                column.getName() + " " + ((Schema.UnresolvedPhysicalColumn) column).getDataType())
        .toList();
  }
}
