package dev.flinklance.table.lookup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.access.TableRef;
import dev.flinklance.table.testing.LookupJoin;
import dev.flinklance.table.testing.LookupJoin.Probe;
import dev.flinklance.table.testing.Users;
import dev.flinklance.testing.TestClusters;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiPredicate;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Lookup keys other than a unique id, at parallelism 2: a composite key, a key on a column that is
 * neither unique nor indexed (many rows per key, NULLs in the table and in the probes), and a join
 * condition on a table column besides the key; exact rows against the same join in Java, before and
 * after a merge-insert.
 */
class LookupKeysITCase {
  private static final int SUBTASKS = 2;
  private static final int USERS = 300;
  private static final Duration REFRESH = Duration.ofMillis(200);

  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @TempDir Path dir;

  private TableRef users() {
    TableRef table = Users.local(dir.resolve("users").toString());
    List<RowData> rows = new ArrayList<>(Users.rows(0, USERS, 0));
    rows.add(Users.row(LookupJoin.SENTINEL, 0));
    dev.flinklance.testing.TestTables.write(table.uri(), Users.ROW_TYPE, rows, 100);
    return table;
  }

  private static String options(TableRef table, String more) {
    return String.format(
        "'path' = '%s', 'lookup.refresh-interval' = '%d ms'%s",
        table.uri(), REFRESH.toMillis(), more);
  }

  /** Probes the join before and after a merge-insert that updates and adds rows. */
  private static void assertJoins(
      LookupJoin join, TableRef table, List<Probe> probes, BiPredicate<Probe, List<Object>> on)
      throws Exception {
    join.awaitGeneration(0, System.nanoTime());
    assertPhase(join, table, probes, on, "before the merge-insert");
    List<RowData> merged = new ArrayList<>(Users.rows(USERS, USERS + 30, 1));
    for (long id = 1; id < USERS; id += 4) {
      merged.add(Users.row(id, 1));
    }
    merged.add(Users.row(LookupJoin.SENTINEL, 1));
    Users.mergeInsert(table, merged);
    join.awaitGeneration(1, System.nanoTime());
    assertPhase(join, table, probes, on, "after the merge-insert");
    assertThat(join.finish()).isEmpty();
  }

  private static void assertPhase(
      LookupJoin join,
      TableRef table,
      List<Probe> probes,
      BiPredicate<Probe, List<Object>> on,
      String phase) {
    List<String> expected =
        LookupJoin.expected(
            probes, SUBTASKS, join.nextSeq(), Users.read(table.uri(), Map.of()).values(), on);
    assertThat(join.probe(probes, expected))
        .as(phase)
        .containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  @Timeout(value = 300, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aCompositeKeyWithAnIndexOnOneOfItsColumns() throws Exception {
    TableRef table = users();
    LanceScalarIndex.create(table, "id");
    List<Probe> probes = new ArrayList<>();
    for (long id = 0; id < USERS + 40; id += 7) {
      probes.add(new Probe(id, "t" + id % 3, null)); // its row
      probes.add(new Probe(id, "t" + (id + 1) % 3, null)); // another tenant's id: no row
    }
    probes.add(new Probe(5L, null, null));
    try (LookupJoin join =
        new LookupJoin(
            SUBTASKS, options(table, ""), "c.tenant = u.tenant AND c.id = u.id", REFRESH)) {
      assertJoins(
          join,
          table,
          probes,
          (probe, row) ->
              probe.id() != null
                  && probe.tenant() != null
                  && probe.id().equals(row.get(0))
                  && probe.tenant().equals(row.get(1)));
    }
  }

  @Test
  @Timeout(value = 300, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aKeyOnAColumnThatIsNeitherUniqueNorIndexed() throws Exception {
    TableRef table = users();
    List<Probe> probes = new ArrayList<>();
    for (int region = -1; region <= 10; region++) {
      probes.add(new Probe((long) region, null, region));
    }
    probes.add(new Probe(99L, null, null));
    try (LookupJoin join =
        new LookupJoin(
            SUBTASKS,
            options(table, ", 'lookup.async' = 'true'"),
            "c.region = u.region",
            REFRESH)) {
      assertJoins(
          join,
          table,
          probes,
          (probe, row) -> probe.region() != null && probe.region().equals(row.get(2)));
    }
  }

  @Test
  @Timeout(value = 300, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aConditionOnATableColumnBesidesTheKey() throws Exception {
    TableRef table = users();
    List<Probe> probes = new ArrayList<>();
    for (long id = 0; id < USERS + 40; id += 5) {
      probes.add(Probe.ofId(id));
    }
    try (LookupJoin join =
        new LookupJoin(
            SUBTASKS,
            options(table, ""),
            "c.id = u.id AND (u.tenant = 't1' OR u.id = " + LookupJoin.SENTINEL + ")",
            REFRESH)) {
      assertJoins(
          join,
          table,
          probes,
          (probe, row) ->
              Objects.equals(probe.id(), row.get(0))
                  && (row.get(1).equals("t1") || probe.id() == LookupJoin.SENTINEL));
    }
  }
}
