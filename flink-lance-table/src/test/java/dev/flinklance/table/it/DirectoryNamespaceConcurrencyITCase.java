package dev.flinklance.table.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lance.namespace.LanceNamespace;
import org.lance.namespace.RestAdapter;
import org.lance.namespace.errors.InternalException;
import org.lance.namespace.errors.NamespaceAlreadyExistsException;
import org.lance.namespace.errors.TableAlreadyExistsException;
import org.lance.namespace.model.CreateNamespaceRequest;
import org.lance.namespace.model.DeclareTableRequest;
import org.lance.namespace.model.DescribeTableRequest;
import org.lance.namespace.model.DropNamespaceRequest;
import org.lance.namespace.model.DropTableRequest;
import org.lance.namespace.model.ListNamespacesRequest;
import org.lance.namespace.model.ListTablesRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What lance-core 7.0.0's directory namespace does under concurrent writers, without the catalog:
 * threads with a {@code DirectoryNamespace} each (or a REST client each, of one {@code
 * RestAdapter}) on one root create and drop namespaces and tables of their own, and race for the
 * same names. Afterwards the namespace lists exactly what each thread believes it created and did
 * not drop, once; each table created is complete; each contested name has one winner, and every
 * loser is told "already exists" or (the fact {@code NamespaceStore} relies on) an {@code
 * InternalException} of the manifest's merge-insert saying "found matching row".
 */
class DirectoryNamespaceConcurrencyITCase {
  private static final Logger LOG =
      LoggerFactory.getLogger(DirectoryNamespaceConcurrencyITCase.class);
  private static final RowType ROW =
      (RowType) DataTypes.ROW(DataTypes.FIELD("id", DataTypes.BIGINT())).getLogicalType();

  @TempDir Path dir;

  private final Set<String> namespaces = ConcurrentHashMap.newKeySet();
  private final Set<List<String>> tables = ConcurrentHashMap.newKeySet();
  private final Map<String, AtomicInteger> winners = new ConcurrentHashMap<>();
  private final List<RuntimeException> losers = Collections.synchronizedList(new ArrayList<>());
  private final AtomicInteger calls = new AtomicInteger();

  @ParameterizedTest
  @ValueSource(strings = {"dir", "rest"})
  @Timeout(120)
  void writersLoseNothing(String impl) throws Exception {
    measure(impl, 4, 6);
  }

  /** More writers than cores: calls take longer (lance-core retries its manifest commits). */
  @ParameterizedTest
  @ValueSource(strings = {"dir", "rest"})
  @Tag("slow")
  @Timeout(600)
  void manyWritersLoseNothing(String impl) throws Exception {
    measure(impl, 16, 6);
  }

  private void measure(String impl, int writers, int rounds) throws Exception {
    String root = "file://" + dir.resolve("lake");
    RestAdapter server = null;
    if (impl.equals("rest")) {
      server = new RestAdapter("dir", new HashMap<>(Map.of("root", root)), "127.0.0.1", 0);
      server.start();
    }
    Map<String, String> properties =
        new HashMap<>(
            server == null
                ? Map.of("root", root)
                : Map.of("uri", "http://127.0.0.1:" + server.getPort()));
    try (BufferAllocator allocator = new RootAllocator()) {
      LanceNamespace reader = LanceNamespace.connect(impl, properties, allocator);
      reader.createNamespace(new CreateNamespaceRequest().id(List.of("shared")));
      namespaces.add("shared");
      CyclicBarrier round = new CyclicBarrier(writers);
      ExecutorService pool = Executors.newFixedThreadPool(writers);
      List<Future<?>> done = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        String me = "w" + w;
        LanceNamespace namespace = LanceNamespace.connect(impl, properties, allocator);
        done.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < rounds; i++) {
                    write(namespace, me, i);
                    round.await(60, TimeUnit.SECONDS);
                    contest(namespace, i);
                  }
                  return null;
                }));
      }
      pool.shutdown();
      // every writer ends before the namespaces are let go: lance-core crashes the JVM when a
      // directory namespace goes during a call
      assertThat(pool.awaitTermination(100, TimeUnit.SECONDS)).isTrue();
      for (Future<?> writer : done) {
        writer.get();
      }

      List<String> listed =
          new ArrayList<>(
              reader.listNamespaces(new ListNamespacesRequest().id(List.of())).getNamespaces());
      assertThat(listed).containsExactlyInAnyOrderElementsOf(namespaces);
      List<List<String>> listedTables = new ArrayList<>();
      for (String namespace : listed) {
        for (String table :
            reader.listTables(new ListTablesRequest().id(List.of(namespace))).getTables()) {
          listedTables.add(List.of(namespace, table));
        }
      }
      assertThat(listedTables).containsExactlyInAnyOrderElementsOf(tables);
      for (List<String> id : tables) {
        String location = reader.describeTable(new DescribeTableRequest().id(id)).getLocation();
        assertThat(LanceTestTables.exists(location)).as("%s is complete", id).isTrue();
      }
      assertThat(winners)
          .hasSize(2 * rounds)
          .allSatisfy((name, won) -> assertThat(won).hasValue(1));
      assertThat(losers)
          .hasSize(2 * rounds * (writers - 1))
          .allMatch(
              e ->
                  e instanceof NamespaceAlreadyExistsException
                      || e instanceof TableAlreadyExistsException
                      || (e instanceof InternalException
                          && e.getMessage().contains("found matching row")));
      LOG.info(
          "{} writers on '{}': {} calls, {} lost races, {} of them told by an InternalException",
          writers,
          impl,
          calls,
          losers.size(),
          losers.stream().filter(e -> e instanceof InternalException).count());
    } finally {
      if (server != null) {
        server.close();
      }
    }
  }

  /** Names of the writer's own: a namespace and two tables, dropped again a round later. */
  private void write(LanceNamespace namespace, String me, int i) {
    String own = me + "_" + i;
    call(() -> namespace.createNamespace(new CreateNamespaceRequest().id(List.of(own))));
    namespaces.add(own);
    for (List<String> id : List.of(List.of(own, "t"), List.of("shared", own))) {
      String location =
          call(() -> namespace.declareTable(new DeclareTableRequest().id(id))).getLocation();
      TestTables.create(location, ROW, Map.of());
      tables.add(id);
    }
    if (i % 2 == 1) {
      String old = me + "_" + (i - 1);
      for (List<String> id : List.of(List.of(old, "t"), List.of("shared", old))) {
        call(() -> namespace.dropTable(new DropTableRequest().id(id)));
        tables.remove(id);
      }
      call(() -> namespace.dropNamespace(new DropNamespaceRequest().id(List.of(old))));
      namespaces.remove(old);
    }
  }

  /** Every writer at once: the same namespace, the same table. */
  private void contest(LanceNamespace namespace, int i) {
    String name = "contested_" + i;
    try {
      call(() -> namespace.createNamespace(new CreateNamespaceRequest().id(List.of(name))));
      winners.computeIfAbsent(name, k -> new AtomicInteger()).incrementAndGet();
      namespaces.add(name);
    } catch (RuntimeException e) {
      losers.add(e);
    }
    List<String> id = List.of("shared", name);
    try {
      String location =
          call(() -> namespace.declareTable(new DeclareTableRequest().id(id))).getLocation();
      TestTables.create(location, ROW, Map.of());
      winners.computeIfAbsent(id.toString(), k -> new AtomicInteger()).incrementAndGet();
      tables.add(id);
    } catch (RuntimeException e) {
      losers.add(e);
    }
  }

  private <T> T call(java.util.function.Supplier<T> call) {
    calls.incrementAndGet();
    return call.get();
  }
}
