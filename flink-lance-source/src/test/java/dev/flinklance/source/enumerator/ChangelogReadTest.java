package dev.flinklance.source.enumerator;

import static dev.flinklance.source.testing.SourceTable.rows;
import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.source.LanceSourceBuilder;
import dev.flinklance.source.SourceScans;
import dev.flinklance.source.testing.KeyedChangelog;
import dev.flinklance.source.testing.SourceTable;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A changelog read of tables changed by Lance's own delete, merge-insert (upsert) and compaction,
 * planned by the source's planner and read by its reader ({@link PlannedRead}): the exact changes
 * of each version, in the order the one reader of a changelog read emits them.
 */
class ChangelogReadTest {
  @TempDir Path dir;

  private SourceTable table;

  /** Ids [0, rows) in fragments of 10 (version 2). */
  private void createTable(boolean stableRowIds, long rows) {
    createTable("customers", stableRowIds);
    table.append(0, rows, 10);
  }

  private void createTable(String name, boolean stableRowIds) {
    table = SourceTable.create(dir.resolve(name), stableRowIds);
  }

  private LanceSourceBuilder changelog() {
    return table.source().streaming().batchSize(4).changelog(true);
  }

  private static PlannedRead read(LanceSourceBuilder source) {
    return new PlannedRead(SourceScans.of(source));
  }

  /**
   * Lance's delete and merge-insert, each one version: -D for the deleted rows (read at the version
   * before), then the upsert's old rows and new rows, paired as -U/+U by the stable row ids Lance
   * keeps for updated rows, by the primary key, or else -D/+I; the compaction between them emits
   * nothing.
   */
  @ParameterizedTest(name = "stable row ids {0}, primary key {1}")
  @CsvSource({"false,false", "true,false", "false,true"})
  void emitsLanceDeletesAndUpsertsAsTheirChanges(boolean stableRowIds, boolean primaryKey)
      throws Exception {
    createTable(stableRowIds, 20); // ids 0..19 in two fragments
    LanceSourceBuilder builder = changelog();
    if (primaryKey) {
      builder.primaryKey("id");
    }
    boolean paired = stableRowIds || primaryKey;
    try (PlannedRead read = read(builder)) {
      KeyedChangelog changelog = new KeyedChangelog();
      changelog.apply(read.start());

      table.delete("id < 3 OR id = 15"); // rows of both fragments
      List<String> deletes = read.next();
      assertThat(deletes).containsExactlyInAnyOrderElementsOf(ids("-D", 0, 1, 2, 15));
      changelog.apply(deletes);

      table.upsert(Map.of(5L, "new-5", 16L, "new-16", 20L, "name-20"));
      List<String> upsert = read.next();
      assertThat(upsert).hasSize(5);
      assertThat(upsert.subList(0, 2))
          .as("the old rows first")
          .containsExactlyInAnyOrderElementsOf(ids(paired ? "-U" : "-D", 5, 16));
      assertThat(upsert.subList(2, 5))
          .containsExactlyInAnyOrder(
              (paired ? "+U" : "+I") + "[5, new-5]",
              (paired ? "+U" : "+I") + "[16, new-16]",
              "+I[20, name-20]");
      changelog.apply(upsert);

      TestTables.compact(table.uri()); // Rewrite: nothing
      table.delete("id = 16 OR id = 4"); // in the compacted fragment
      List<String> afterCompaction = read.next();
      assertThat(afterCompaction).containsExactlyInAnyOrder("-D[4, name-4]", "-D[16, new-16]");
      changelog.apply(afterCompaction);

      assertThat(changelog.violations()).isEmpty();
      assertThat(changelog.rows()).isEqualTo(KeyedChangelog.tableRows(table.uri()));
    }
    assertThat(LanceTestTables.commits(table.uri()))
        .extracting(LanceTestTables.Commit::operation)
        .contains("Delete", "Update", "Rewrite");
  }

  /**
   * A table with a BTree index: lance-core 7.0.0 cannot read back its compaction's transaction
   * (without stable row ids, where the index is remapped). The compaction, which also drops the
   * rows deleted before it, emits nothing; the changes before and after it are read exactly.
   */
  @ParameterizedTest(name = "stable row ids {0}")
  @CsvSource({"false", "true"})
  void aCompactionOfAnIndexedTableEmitsNothing(boolean stableRowIds) throws Exception {
    createTable(stableRowIds, 20);
    TestTables.createScalarIndex(table.uri(), "id");
    try (PlannedRead read = read(changelog().primaryKey("id"))) {
      KeyedChangelog changelog = new KeyedChangelog().apply(read.start());
      table.delete("id < 4 OR id = 15");
      List<String> deletes = read.next();
      assertThat(deletes).containsExactlyInAnyOrderElementsOf(ids("-D", 0, 1, 2, 3, 15));
      TestTables.compact(table.uri()); // materialises the deletes
      table.upsert(Map.of(5L, "new-5", 20L, "name-20"));
      table.delete("id = 16");
      List<String> after = read.next();
      assertThat(after).hasSize(4);
      assertThat(after.get(0)).isEqualTo("-U[5, name-5]");
      assertThat(after.subList(1, 3)).containsExactlyInAnyOrder("+U[5, new-5]", "+I[20, name-20]");
      assertThat(after.get(3)).isEqualTo("-D[16, name-16]");
      changelog.apply(deletes).apply(after);
      assertThat(changelog.violations()).isEmpty();
      assertThat(changelog.rows()).isEqualTo(KeyedChangelog.tableRows(table.uri()));
    }
    // stable row ids need no index remap: that Rewrite reads back
    assertThat(LanceTestTables.commits(table.uri()))
        .extracting(LanceTestTables.Commit::operation)
        .contains(stableRowIds ? "Rewrite" : LanceTestTables.UNREADABLE);
  }

  /**
   * Many versions of appends, deletes, upserts and compactions, read as they come: applied in order
   * to an empty table, the changes give the table, and each key's changes came in commit order.
   */
  @ParameterizedTest(name = "stable row ids {0}")
  @CsvSource({"false", "true"})
  void theChangelogOfManyVersionsIsTheTable(boolean stableRowIds) throws Exception {
    createTable(stableRowIds, 50);
    Random random = new Random(42);
    try (PlannedRead read = read(changelog())) {
      KeyedChangelog changelog = new KeyedChangelog().apply(read.start());
      long next = 50;
      for (int step = 0; step < 30; step++) {
        switch (random.nextInt(4)) {
          case 0 -> {
            table.append(next, next + 7, 10);
            next += 7;
          }
          case 1 -> table.delete("id % 7 = " + random.nextInt(7));
          case 2 -> {
            long id = random.nextInt((int) next);
            table.upsert(Map.of(id, "step-" + step, next++, "step-" + step));
          }
          default -> TestTables.compact(table.uri());
        }
        if (step % 3 == 0) {
          changelog.apply(read.next());
        }
      }
      changelog.apply(read.next());
      assertThat(changelog.violations()).isEmpty();
      assertThat(changelog.rows()).isEqualTo(KeyedChangelog.tableRows(table.uri()));
    }
  }

  /**
   * Deletes of a few rows are read by naming them in the scan's filter, deletes of many by picking
   * them out of a scan of the fragment: both give exactly the deleted rows, on tables with and
   * without stable row ids (whose row ids are not the row addresses), in any fragment.
   */
  @ParameterizedTest(name = "stable row ids {0}")
  @CsvSource({"false", "true"})
  void readsTheRowsOfSmallAndLargeDeletes(boolean stableRowIds) throws Exception {
    createTable("large", stableRowIds);
    table.append(0, 10, 10);
    table.append(10, 10_010, 10_000);
    try (PlannedRead read = read(changelog().batchSize(1024))) {
      assertThat(read.start()).hasSize(10_010);
      table.delete("id = 5 OR id = 17 OR id = 10009");
      assertThat(read.next()).containsExactlyInAnyOrderElementsOf(ids("-D", 5, 17, 10_009));
      table.delete("id >= 10 AND id % 2 = 0"); // 5,000 rows of the second fragment
      assertThat(read.next())
          .containsExactlyElementsOf(
              LongStream.range(10, 10_010)
                  .filter(id -> id % 2 == 0)
                  .mapToObj(id -> "-D[" + id + ", name-" + id + "]")
                  .toList());
    }
  }

  /**
   * A pushed filter is applied to each image: a row updated out of the filter is -D, one updated
   * into it +I, one updated within it -U/+U.
   */
  @Test
  void aPushedFilterSeesEachImage() throws Exception {
    createTable(true, 10);
    try (PlannedRead read = read(changelog().filter("name <> 'hidden'"))) {
      assertThat(read.start()).hasSize(10);
      table.upsert(Map.of(1L, "hidden", 2L, "shown")); // 1 leaves the filter
      assertThat(read.next()).containsExactly("-D[1, name-1]", "-U[2, name-2]", "+U[2, shown]");
      table.upsert(Map.of(1L, "back", 3L, "hidden")); // 1 comes back, 3 leaves
      assertThat(read.next()).containsExactly("-D[3, name-3]", "+I[1, back]");
    }
  }

  /**
   * A pushed filter on a column that pairs nothing (a non-key column, read or not): the changes of
   * each version, small (rows named in the scan's filter) and large (picked out of a scan), deletes
   * and updates, are those of the filtered table, which a model of the table gives: its filtered
   * rows before the version retracted, after it added. Changes that keep a row as it was are not
   * made here, so every image differs.
   */
  @ParameterizedTest(name = "stable row ids {0}, primary key {1}, name read {2}")
  @CsvSource({"false,true,true", "true,true,true", "false,false,false", "true,false,false"})
  void aFilteredChangelogIsTheChangelogOfTheFilteredRows(
      boolean stableRowIds, boolean primaryKey, boolean nameRead) throws Exception {
    createTable("filtered", stableRowIds);
    table.append(0, 10, 10); // fragment 0
    table.append(10, 20_010, 20_000); // fragment 1
    LanceSourceBuilder builder = changelog().batchSize(1024).filter("name <> 'hidden'");
    if (primaryKey) {
      builder.primaryKey("id");
    }
    if (!nameRead) {
      builder.columns("id");
    }
    FilteredModel model = new FilteredModel(nameRead);
    List<Runnable> versions =
        List.of(
            // small updates in both fragments: out of the filter, within it
            () -> table.upsert(Map.of(1L, "hidden", 2L, "shown-2", 12L, "hidden", 13L, "shown-13")),
            () -> table.delete("id = 2 OR id = 12 OR id = 17 OR id = 20009"),
            () -> table.upsert(largeUpdate()), // 5,000 rows, some into the filter
            () -> table.delete("id >= 5010 AND id % 2 = 0")); // 7,500 rows
    List<String> emitted = new ArrayList<>();
    try (PlannedRead read = read(builder)) {
      emitted.addAll(model.assertChanges(read.start()));
      for (Runnable version : versions) {
        version.run();
        List<String> changes = model.assertChanges(read.next());
        if (version == versions.get(0) && primaryKey) {
          assertThat(changes)
              .containsExactlyInAnyOrder(
                  "-D[1, name-1]",
                  "-U[2, name-2]",
                  "+U[2, shown-2]",
                  "-D[12, name-12]",
                  "-U[13, name-13]",
                  "+U[13, shown-13]");
        }
        emitted.addAll(changes);
      }
    }
    if (nameRead) {
      KeyedChangelog changelog = new KeyedChangelog().apply(emitted);
      assertThat(changelog.violations()).isEmpty();
      assertThat(changelog.rows()).isEqualTo(model.rows());
    }
  }

  /** Ids 10..5009 renamed: every third hidden, 12 (hidden before) shown again. */
  private static Map<Long, String> largeUpdate() {
    Map<Long, String> names = new HashMap<>();
    for (long id = 10; id < 5010; id++) {
      names.put(id, id % 3 == 0 ? "hidden" : "big-" + id);
    }
    names.remove(17L); // deleted: stays deleted
    names.put(12L, "back-12");
    return names;
  }

  /** The table's rows that pass the filter, and what each version changed of them. */
  private final class FilteredModel {
    private final boolean nameRead;
    private Map<Long, String> rows = Map.of();

    FilteredModel(boolean nameRead) {
      this.nameRead = nameRead;
    }

    /** The changes since the last call, as {@code -[..]} and {@code +[..]}, in no order. */
    private List<String> changes() {
      Map<Long, String> now = new TreeMap<>();
      for (List<Object> row : LanceTestTables.readColumns(table.uri(), List.of("id", "name"))) {
        if (!row.get(1).toString().equals("hidden")) {
          now.put((Long) row.get(0), row.get(1).toString());
        }
      }
      List<String> changes = new ArrayList<>();
      rows.forEach(
          (id, name) -> {
            if (!name.equals(now.get(id))) {
              changes.add("-" + image(id, name));
            }
          });
      now.forEach(
          (id, name) -> {
            if (!name.equals(rows.get(id))) {
              changes.add("+" + image(id, name));
            }
          });
      rows = now;
      return changes;
    }

    private String image(long id, String name) {
      return nameRead ? KeyedChangelog.image(id, name) : "[" + id + "]";
    }

    /** The changes read for the version(s) since the last call, by sign and image the model's. */
    List<String> assertChanges(List<String> read) {
      assertThat(read.stream().map(change -> change.charAt(0) + change.substring(2)))
          .containsExactlyInAnyOrderElementsOf(changes());
      return read;
    }

    List<String> rows() {
      return rows.entrySet().stream().map(e -> image(e.getKey(), e.getValue())).toList();
    }
  }

  private static List<String> ids(String kind, long... ids) {
    return LongStream.of(ids).mapToObj(id -> rows(kind, id, id + 1).get(0)).toList();
  }
}
