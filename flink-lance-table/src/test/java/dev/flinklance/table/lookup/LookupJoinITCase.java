package dev.flinklance.table.lookup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.access.TableRef;
import dev.flinklance.index.ScalarIndex;
import dev.flinklance.table.testing.LookupJoin;
import dev.flinklance.table.testing.LookupJoin.Probe;
import dev.flinklance.table.testing.Users;
import dev.flinklance.testing.TestClusters;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.lance.Dataset;

/**
 * A lookup join at parallelism 2 while the table changes under it, in every cache mode, sync and
 * async, with and without a scalar index: inserts, updates and deletes by our own upsert sink, then
 * by lance-core's delete and merge-insert. After each change set the join's rows for every probe
 * equal the same join computed in Java on the table as plain Lance reads it: each lookup reads one
 * table version, and every task moves to the newest one.
 */
class LookupJoinITCase {
  private static final int SUBTASKS = 2;
  private static final int USERS = 600;
  private static final Duration REFRESH = Duration.ofMillis(200);
  private static final Duration EXPIRY = Duration.ofSeconds(1);

  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @TempDir Path dir;

  static Stream<Arguments> modes() {
    return Stream.of(
        Arguments.of("NONE", false, true),
        Arguments.of("NONE", false, false),
        Arguments.of("NONE", true, true),
        Arguments.of("NONE", true, false),
        Arguments.of("PARTIAL", false, true),
        Arguments.of("PARTIAL", true, false),
        Arguments.of("FULL", false, true),
        Arguments.of("FULL", false, false));
  }

  private static String options(String path, String cache, boolean async) {
    String options =
        String.format(
            "'path' = '%s', 'lookup.cache' = '%s', 'lookup.async' = '%s',"
                + " 'lookup.refresh-interval' = '%d ms'",
            path, cache, async, REFRESH.toMillis());
    if (cache.equals("PARTIAL")) {
      options +=
          ", 'lookup.partial-cache.max-rows' = '100000',"
              + " 'lookup.partial-cache.expire-after-write' = '"
              + EXPIRY.toMillis()
              + " ms'";
    }
    return options;
  }

  /** Probes by id: present, absent, negative, and NULL keys. */
  private static List<Probe> probes() {
    List<Probe> probes = new ArrayList<>();
    for (long id = -3; id < USERS + 70; id += 3) {
      probes.add(Probe.ofId(id));
    }
    for (int i = 0; i < 8; i++) {
      probes.add(Probe.ofId(null));
    }
    return probes;
  }

  private static RowData change(RowKind kind, long id, int generation) {
    RowData row = Users.row(id, generation);
    ((GenericRowData) row).setRowKind(kind);
    return row;
  }

  @ParameterizedTest(name = "cache {0}, async {1}, scalar index {2}")
  @MethodSource("modes")
  @Timeout(value = 600, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void everyPhaseJoinsExactlyTheTableVersionOfIt(String cache, boolean async, boolean indexed)
      throws Exception {
    TableRef table = Users.local(dir.resolve("users").toString());
    List<RowData> initial = new ArrayList<>(Users.rows(0, USERS, 0));
    initial.add(Users.row(LookupJoin.SENTINEL, 0));
    LookupJoin.upsert(table, initial, indexed);
    if (indexed) {
      // the sink built its key index on the empty table: add the rows to it; later changes come
      // in fragments the index does not cover, which Lance scans next to the index
      assertThat(LanceScalarIndex.create(table, "id").action()).isEqualTo("updated");
    }
    assertThat(indexedFragments(table)).isEqualTo(indexed ? 1 : 0);
    List<Probe> ids = probes();

    try (LookupJoin join =
        new LookupJoin(
            SUBTASKS,
            options(table.uri(), cache, async),
            "c.id = u.id",
            REFRESH,
            cache.equals("PARTIAL") ? EXPIRY : Duration.ZERO)) {
      join.awaitGeneration(0, System.nanoTime());
      assertPhase(join, ids, table, "before any change");

      // our own sink: updates, deletes and inserts in one commit
      List<RowData> changes = new ArrayList<>();
      for (long id = 0; id < USERS + 40; id++) {
        if (id >= USERS) {
          changes.add(change(RowKind.INSERT, id, 1));
        } else if (id % 11 == 0) {
          changes.add(change(RowKind.DELETE, id, 0));
        } else if (id % 7 == 0) {
          changes.add(change(RowKind.UPDATE_AFTER, id, 1));
        }
      }
      changes.add(change(RowKind.UPDATE_AFTER, LookupJoin.SENTINEL, 1));
      LookupJoin.upsert(table, changes, indexed);
      join.awaitGeneration(1, System.nanoTime());
      assertPhase(join, ids, table, "after the upsert sink's commit");

      // lance-core: a delete, then a merge-insert of updates and new rows
      Users.delete(table, "id % 13 = 1");
      List<RowData> merged = new ArrayList<>();
      for (long id = 2; id < USERS + 60; id += 5) {
        merged.add(Users.row(id, 2));
      }
      merged.add(Users.row(LookupJoin.SENTINEL, 2));
      Users.mergeInsert(table, merged);
      join.awaitGeneration(2, System.nanoTime());
      assertPhase(join, ids, table, "after lance-core's delete and merge-insert");

      assertThat(join.finish()).as("no rows beyond the probes'").isEmpty();
    }
  }

  private static void assertPhase(
      LookupJoin join, List<Probe> probes, TableRef table, String phase) {
    List<String> expected =
        LookupJoin.expected(
            probes,
            SUBTASKS,
            join.nextSeq(),
            Users.read(table.uri(), Map.of()).values(),
            (probe, row) -> probe.id() != null && probe.id().equals(row.get(0)));
    assertThat(join.probe(probes, expected))
        .as(phase)
        .containsExactlyInAnyOrderElementsOf(expected);
  }

  private static int indexedFragments(TableRef table) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = table.open(allocator)) {
      return ScalarIndex.btreesOf(dataset).stream()
          .filter(i -> i.column().equals("id"))
          .mapToInt(i -> i.fragmentIds().size())
          .sum();
    }
  }
}
