package dev.flinklance.source.stream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.errors.PermanentDatasetException;
import dev.flinklance.source.LanceSource;
import dev.flinklance.source.LanceSourceBuilder;
import dev.flinklance.source.OnDelete;
import dev.flinklance.source.OnOverwrite;
import dev.flinklance.source.testing.KeyedChangelog;
import dev.flinklance.source.testing.SourceTestCluster;
import dev.flinklance.testing.ChangeStream;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestRows;
import dev.flinklance.testing.TestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.lance.Dataset;
import org.lance.cleanup.CleanupPolicy;

/**
 * A changelog read of tables changed by Lance's own delete, merge-insert (upsert), compaction and
 * overwrite: the exact changes of each version, in order, and the errors no restart can fix.
 */
@Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class StreamingChangelogITCase {
  @RegisterExtension static final MiniClusterExtension CLUSTER = SourceTestCluster.create();

  @TempDir Path dir;

  private String table;

  private void createTable(boolean stableRowIds, long rows) {
    createTable("customers", stableRowIds, rows);
  }

  private void createTable(String name, boolean stableRowIds, long rows) {
    table = dir.resolve(name).toString();
    TestTables.create(table, TestRows.ROW_TYPE, Map.of(), stableRowIds);
    append(0, rows);
  }

  private void append(long from, long to) {
    TestTables.append(
        table, TestRows.ROW_TYPE, LongStream.range(from, to).mapToObj(TestRows::row).toList(), 10);
  }

  private void upsert(Map<Long, String> names) {
    List<RowData> rows = new ArrayList<>();
    names.forEach((id, name) -> rows.add(GenericRowData.of(id, StringData.fromString(name))));
    TestTables.upsert(table, TestRows.ROW_TYPE, "id", rows);
  }

  private static String format(RowData row) {
    return row.getRowKind().shortString() + "[" + row.getLong(0) + ", " + row.getString(1) + "]";
  }

  private LanceSourceBuilder changelog() {
    return LanceSource.builder()
        .path(table)
        .streaming()
        .discoveryInterval(Duration.ofMillis(100))
        .batchSize(4)
        .changelog(true);
  }

  private static ChangeStream start(LanceSource source) throws Exception {
    return start(source, StreamingChangelogITCase::format);
  }

  private static ChangeStream start(LanceSource source, Function<RowData, String> format)
      throws Exception {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(1);
    return ChangeStream.start(
        env, env.fromSource(source, WatermarkStrategy.noWatermarks(), "lance"), format);
  }

  /** The table's rows as a changelog read shows them, in id order. */
  private List<String> tableRows() {
    return LanceTestTables.readColumns(table, List.of("id", "name")).stream()
        .sorted((a, b) -> Long.compare((Long) a.get(0), (Long) b.get(0)))
        .map(row -> KeyedChangelog.image((Long) row.get(0), row.get(1).toString()))
        .toList();
  }

  private static List<String> rowsOf(String kind, long... ids) {
    return LongStream.of(ids).mapToObj(id -> kind + "[" + id + ", name-" + id + "]").toList();
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
    createTable(stableRowIds, 20); // version 2: ids 0..19 in two fragments
    LanceSourceBuilder builder = changelog();
    if (primaryKey) {
      builder.primaryKey("id");
    }
    boolean paired = stableRowIds || primaryKey;
    try (ChangeStream stream = start(builder.build())) {
      KeyedChangelog changelog = new KeyedChangelog();
      changelog.apply(stream.take(20));

      TestTables.delete(table, "id < 3 OR id = 15"); // version 3: rows of both fragments
      List<String> deletes = stream.take(4);
      assertThat(deletes).containsExactlyInAnyOrderElementsOf(rowsOf("-D", 0, 1, 2, 15));
      changelog.apply(deletes);

      upsert(Map.of(5L, "new-5", 16L, "new-16", 20L, "name-20")); // version 4
      List<String> upsert = stream.take(5);
      assertThat(upsert.subList(0, 2))
          .as("the old rows first")
          .containsExactlyInAnyOrderElementsOf(rowsOf(paired ? "-U" : "-D", 5, 16));
      assertThat(upsert.subList(2, 5))
          .containsExactlyInAnyOrder(
              (paired ? "+U" : "+I") + "[5, new-5]",
              (paired ? "+U" : "+I") + "[16, new-16]",
              "+I[20, name-20]");
      changelog.apply(upsert);

      TestTables.compact(table); // Rewrite: nothing
      TestTables.delete(table, "id = 16 OR id = 4"); // in the compacted fragment
      List<String> afterCompaction = stream.take(2);
      assertThat(afterCompaction).containsExactlyInAnyOrder("-D[4, name-4]", "-D[16, new-16]");
      changelog.apply(afterCompaction);
      assertThat(stream.more(Duration.ofMillis(500))).isEmpty();

      assertThat(changelog.violations()).isEmpty();
      assertThat(changelog.rows()).isEqualTo(tableRows());
    }
    assertThat(LanceTestTables.commits(table))
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
    createTable(stableRowIds, 20); // ids 0..19 in two fragments
    TestTables.createScalarIndex(table, "id");
    try (ChangeStream stream = start(changelog().primaryKey("id").build())) {
      KeyedChangelog changelog = new KeyedChangelog().apply(stream.take(20));
      TestTables.delete(table, "id < 4 OR id = 15");
      List<String> deletes = stream.take(5);
      assertThat(deletes).containsExactlyInAnyOrderElementsOf(rowsOf("-D", 0, 1, 2, 3, 15));
      TestTables.compact(table); // materialises the deletes
      upsert(Map.of(5L, "new-5", 20L, "name-20"));
      TestTables.delete(table, "id = 16");
      List<String> after = stream.take(4);
      assertThat(after.get(0)).isEqualTo("-U[5, name-5]");
      assertThat(after.subList(1, 3)).containsExactlyInAnyOrder("+U[5, new-5]", "+I[20, name-20]");
      assertThat(after.get(3)).isEqualTo("-D[16, name-16]");
      assertThat(stream.more(Duration.ofMillis(500))).isEmpty();
      changelog.apply(deletes).apply(after);
      assertThat(changelog.violations()).isEmpty();
      assertThat(changelog.rows()).isEqualTo(tableRows());
    }
    // stable row ids need no index remap: that Rewrite reads back
    assertThat(LanceTestTables.commits(table))
        .extracting(LanceTestTables.Commit::operation)
        .contains(stableRowIds ? "Rewrite" : LanceTestTables.UNREADABLE);
  }

  /**
   * Many versions of appends, deletes, upserts and compactions: applied in order to an empty table,
   * the changes give the table, and each key's changes came in commit order.
   */
  @ParameterizedTest(name = "stable row ids {0}")
  @CsvSource({"false", "true"})
  void theChangelogOfManyVersionsIsTheTable(boolean stableRowIds) throws Exception {
    createTable(stableRowIds, 50);
    Random random = new Random(42);
    try (ChangeStream stream = start(changelog().build())) {
      KeyedChangelog changelog = new KeyedChangelog();
      long next = 50;
      for (int step = 0; step < 30; step++) {
        switch (random.nextInt(4)) {
          case 0 -> {
            append(next, next + 7);
            next += 7;
          }
          case 1 -> TestTables.delete(table, "id % 7 = " + random.nextInt(7));
          case 2 -> {
            long id = random.nextInt((int) next);
            upsert(Map.of(id, "step-" + step, next++, "step-" + step));
          }
          default -> TestTables.compact(table);
        }
      }
      List<String> expected = tableRows();
      stream.takeUntil(
          changes -> {
            changelog.apply(changes.subList(changelog.appliedCount(), changes.size()));
            return changelog.rows().equals(expected);
          });
      assertThat(changelog.violations()).isEmpty();
      assertThat(stream.more(Duration.ofMillis(500))).isEmpty();
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
    table = dir.resolve("large").toString();
    TestTables.create(table, TestRows.ROW_TYPE, Map.of(), stableRowIds);
    TestTables.append(
        table, TestRows.ROW_TYPE, LongStream.range(0, 10).mapToObj(TestRows::row).toList(), 10);
    TestTables.append(
        table,
        TestRows.ROW_TYPE,
        LongStream.range(10, 10_010).mapToObj(TestRows::row).toList(),
        10_000);
    try (ChangeStream stream = start(changelog().batchSize(1024).build())) {
      assertThat(stream.take(10_010)).hasSize(10_010);
      TestTables.delete(table, "id = 5 OR id = 17 OR id = 10009");
      assertThat(stream.take(3)).containsExactlyInAnyOrderElementsOf(rowsOf("-D", 5, 17, 10_009));
      TestTables.delete(table, "id >= 10 AND id % 2 = 0"); // 5,000 rows of the second fragment
      assertThat(stream.take(5_000))
          .containsExactlyInAnyOrderElementsOf(
              LongStream.range(10, 10_010)
                  .filter(id -> id % 2 == 0)
                  .mapToObj(id -> "-D[" + id + ", name-" + id + "]")
                  .toList());
      assertThat(stream.more(Duration.ofMillis(500))).isEmpty();
    }
  }

  /**
   * A pushed filter is applied to each image: a row updated out of the filter is -D, one updated
   * into it +I, one updated within it -U/+U.
   */
  @Test
  void aPushedFilterSeesEachImage() throws Exception {
    createTable(true, 10);
    try (ChangeStream stream = start(changelog().filter("name <> 'hidden'").build())) {
      assertThat(stream.take(10)).hasSize(10);
      upsert(Map.of(1L, "hidden", 2L, "shown")); // 1 leaves the filter, 2 stays
      assertThat(stream.take(3)).containsExactly("-D[1, name-1]", "-U[2, name-2]", "+U[2, shown]");
      upsert(Map.of(1L, "back", 3L, "hidden")); // 1 comes back, 3 leaves
      assertThat(stream.take(2)).containsExactly("-D[3, name-3]", "+I[1, back]");
      assertThat(stream.more(Duration.ofMillis(500))).isEmpty();
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
    table = dir.resolve("filtered").toString();
    TestTables.create(table, TestRows.ROW_TYPE, Map.of(), stableRowIds);
    append(0, 10); // fragment 0
    TestTables.append(
        table,
        TestRows.ROW_TYPE,
        LongStream.range(10, 20_010).mapToObj(TestRows::row).toList(),
        20_000); // fragment 1
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
            () -> upsert(Map.of(1L, "hidden", 2L, "shown-2", 12L, "hidden", 13L, "shown-13")),
            () -> TestTables.delete(table, "id = 2 OR id = 12 OR id = 17 OR id = 20009"),
            () -> upsert(largeUpdate()), // 5,000 rows of fragment 1, some into the filter
            () -> TestTables.delete(table, "id >= 5010 AND id % 2 = 0")); // 7,500 rows
    List<String> emitted = new ArrayList<>();
    try (ChangeStream stream =
        start(builder.build(), row -> nameRead ? format(row) : formatId(row))) {
      emitted.addAll(model.assertNext(stream));
      for (Runnable version : versions) {
        version.run();
        List<String> changes = model.assertNext(stream);
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
      assertThat(stream.more(Duration.ofMillis(500))).isEmpty();
    }
    if (nameRead) {
      KeyedChangelog changelog = new KeyedChangelog().apply(emitted);
      assertThat(changelog.violations()).isEmpty();
      assertThat(changelog.rows()).isEqualTo(model.rows());
    }
  }

  /** Ids 10..5009 renamed: every third hidden, 12 (hidden before) shown again. */
  private static Map<Long, String> largeUpdate() {
    Map<Long, String> names = new java.util.HashMap<>();
    for (long id = 10; id < 5010; id++) {
      names.put(id, id % 3 == 0 ? "hidden" : "big-" + id);
    }
    names.remove(17L); // deleted: stays deleted
    names.put(12L, "back-12");
    return names;
  }

  private static String formatId(RowData row) {
    return row.getRowKind().shortString() + "[" + row.getLong(0) + "]";
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
      Map<Long, String> now = new java.util.TreeMap<>();
      for (List<Object> row : LanceTestTables.readColumns(table, List.of("id", "name"))) {
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

    /**
     * The changes the stream emits for the version(s) since the last call, checked against the
     * model's by sign and image.
     */
    List<String> assertNext(ChangeStream stream) throws InterruptedException {
      List<String> expected = changes();
      List<String> emitted = stream.take(expected.size());
      assertThat(emitted.stream().map(change -> change.charAt(0) + change.substring(2)))
          .containsExactlyInAnyOrderElementsOf(expected);
      return emitted;
    }

    List<String> rows() {
      return rows.entrySet().stream().map(e -> image(e.getKey(), e.getValue())).toList();
    }
  }

  /** Overwrite with scan.on-overwrite = changelog: every old row -D, then every new row +I. */
  @Test
  void anOverwriteAsAChangelog() throws Exception {
    createTable(false, 5);
    try (ChangeStream stream = start(changelog().onOverwrite(OnOverwrite.CHANGELOG).build())) {
      KeyedChangelog changelog = new KeyedChangelog().apply(stream.take(5));
      TestTables.overwrite(table, TestRows.ROW_TYPE, List.of(TestRows.row(3), TestRows.row(100)));
      List<String> overwrite = stream.take(7);
      assertThat(overwrite.subList(0, 5))
          .containsExactlyInAnyOrderElementsOf(rowsOf("-D", 0, 1, 2, 3, 4));
      assertThat(overwrite.subList(5, 7)).containsExactlyInAnyOrderElementsOf(rowsOf("+I", 3, 100));
      append(200, 202);
      changelog.apply(overwrite).apply(stream.take(2));
      assertThat(changelog.violations()).isEmpty();
      assertThat(changelog.rows()).isEqualTo(tableRows());
    }
  }

  /** Overwrite with scan.on-overwrite = skip: nothing for it, the appends after it. */
  @Test
  void anOverwriteSkipped() throws Exception {
    createTable(false, 5);
    LanceSource source =
        LanceSource.builder()
            .path(table)
            .streaming()
            .discoveryInterval(Duration.ofMillis(100))
            .onOverwrite(OnOverwrite.SKIP)
            .build();
    try (ChangeStream stream = start(source)) {
      assertThat(stream.take(5)).containsExactlyInAnyOrderElementsOf(rowsOf("+I", 0, 1, 2, 3, 4));
      TestTables.overwrite(table, TestRows.ROW_TYPE, List.of(TestRows.row(100)));
      append(200, 202);
      assertThat(stream.take(2)).containsExactlyInAnyOrderElementsOf(rowsOf("+I", 200, 201));
      assertThat(stream.more(Duration.ofMillis(500))).isEmpty();
    }
  }

  /** By default an Overwrite fails the job, naming the table and the version; no new row comes. */
  @ParameterizedTest(name = "changelog {0}")
  @CsvSource({"false", "true"})
  void anOverwriteFailsTheJobByDefault(boolean changelog) throws Exception {
    createTable(false, 5);
    try (ChangeStream stream = start(changelog().changelog(changelog).build())) {
      assertThat(stream.take(5)).hasSize(5);
      TestTables.overwrite(table, TestRows.ROW_TYPE, List.of(TestRows.row(100)));
      assertPermanent(
          stream.failure(),
          "Lance table '"
              + table
              + "': version 3 (Overwrite) replaced the table's rows; with 'scan.on-overwrite' ="
              + " 'fail' the streaming read stops here, having emitted every change up to version"
              + " 2 and none of version 3.");
      assertThat(stream.more(Duration.ZERO)).isEmpty();
    }
  }

  /** An append-only read fails at a version that deletes rows, or skips it. */
  @Test
  void anAppendOnlyReadFailsAtADelete() throws Exception {
    createTable(false, 5);
    try (ChangeStream stream = start(changelog().changelog(false).build())) {
      assertThat(stream.take(5)).hasSize(5);
      TestTables.delete(table, "id = 1");
      assertPermanent(
          stream.failure(),
          "Lance table '"
              + table
              + "': version 3 (Delete) deletes or updates rows, which an append-only streaming"
              + " read ('scan.changelog' = 'false') cannot emit");
    }
  }

  @Test
  void anAppendOnlyReadSkipsDeletesAndUpdatesWhenAsked() throws Exception {
    createTable(false, 5);
    LanceSource source = changelog().changelog(false).onDelete(OnDelete.SKIP).build();
    try (ChangeStream stream = start(source)) {
      assertThat(stream.take(5)).hasSize(5);
      TestTables.delete(table, "id = 1");
      upsert(Map.of(2L, "new-2", 50L, "name-50")); // skipped as a whole
      upsert(Map.of(60L, "name-60")); // inserts only: an append
      append(70, 72);
      assertThat(stream.take(3)).containsExactlyInAnyOrderElementsOf(rowsOf("+I", 60, 70, 71));
      assertThat(stream.more(Duration.ofMillis(500))).isEmpty();
    }
  }

  /**
   * A version the read needs was cleaned up (kept: a tagged older version, removed: the ones after
   * it): an error naming the table and the versions, never a silent gap.
   */
  @Test
  void aCleanedUpVersionIsAnError() throws Exception {
    createTable(false, 5); // version 2
    TestTables.delete(table, "id = 1"); // 3
    TestTables.delete(table, "id = 2"); // 4
    append(10, 12); // 5
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open().allocator(allocator).uri(table).build()) {
      dataset.tags().create("kept", 2);
      dataset.cleanupWithPolicy(
          CleanupPolicy.builder().withBeforeVersion(5).withErrorIfTaggedOldVersions(false).build());
    }
    try (ChangeStream stream = start(changelog().startAfterVersion(2).build())) {
      assertPermanent(
          stream.failure(),
          "Lance table '"
              + table
              + "': cannot read what the versions after 2 changed: version 3 no longer exists"
              + " (cleaned up?)");
    }
  }

  @Test
  void aDroppedTableIsAnError() throws Exception {
    createTable(false, 5);
    try (ChangeStream stream = start(changelog().build())) {
      assertThat(stream.take(5)).hasSize(5);
      Dataset.drop(table, Map.of());
      assertPermanent(stream.failure(), "Lance table '" + table + "': the table does not exist");
    }
  }

  /**
   * Replaced by another table with fewer versions than the read had seen (moved into place, so that
   * the read never finds no table).
   */
  @Test
  void aReplacedTableIsAnError() throws Exception {
    createTable(false, 5); // version 2
    append(5, 10); // 3
    String replaced = table;
    try (ChangeStream stream = start(changelog().build())) {
      assertThat(stream.take(10)).hasSize(10);
      createTable("other", false, 3); // versions 1, 2
      Files.move(Path.of(replaced), dir.resolve("old"), StandardCopyOption.ATOMIC_MOVE);
      Files.move(Path.of(table), Path.of(replaced), StandardCopyOption.ATOMIC_MOVE);
      table = replaced;
      assertPermanent(
          stream.failure(),
          "Lance table '"
              + table
              + "': the table was replaced while this job was reading it (its latest version is"
              + " 2, but this job already saw version 3)");
    }
  }

  /**
   * At parallelism 2 one reader reads every split and the other stays idle, so that a key's changes
   * reach a keyed operator of any parallelism in order.
   */
  @Test
  void aChangelogReadUsesOneReader() throws Exception {
    createTable(true, 40);
    String token = UUID.randomUUID().toString();
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(2);
    DataStream<RowData> changes =
        env.fromSource(changelog().build(), WatermarkStrategy.noWatermarks(), "lance")
            .map(new RecordReader(token))
            .returns(TestRows.TYPE_INFO)
            .keyBy(row -> row.getLong(0))
            .map(row -> row)
            .returns(TestRows.TYPE_INFO);
    try (ChangeStream stream = ChangeStream.start(env, changes, StreamingChangelogITCase::format)) {
      KeyedChangelog changelog = new KeyedChangelog().apply(stream.take(40));
      for (int step = 0; step < 10; step++) {
        upsert(Map.of((long) step, "step-" + step, (long) step + 1, "step-" + step));
        TestTables.delete(table, "id = " + (20 + step));
      }
      List<String> expected = tableRows();
      stream.takeUntil(
          more -> {
            changelog.apply(more.subList(changelog.appliedCount() - 40, more.size()));
            return changelog.rows().equals(expected);
          });
      assertThat(changelog.violations()).isEmpty();
    }
    assertThat(RecordReader.READERS.get(token)).hasSize(1);
  }

  /** Records which source subtasks (it is chained to them) emitted rows. */
  private static final class RecordReader extends RichMapFunction<RowData, RowData> {
    private static final long serialVersionUID = 1L;
    static final Map<String, Set<Integer>> READERS = new ConcurrentHashMap<>();
    private final String token;

    RecordReader(String token) {
      this.token = token;
    }

    @Override
    public RowData map(RowData row) {
      READERS
          .computeIfAbsent(token, t -> ConcurrentHashMap.newKeySet())
          .add(getRuntimeContext().getTaskInfo().getIndexOfThisSubtask());
      return row;
    }
  }

  private static void assertPermanent(Throwable failure, String message) {
    assertThat(ExceptionUtils.stringifyException(failure)).contains(message);
    assertThat(ExceptionUtils.findThrowable(failure, PermanentDatasetException.class)).isPresent();
  }
}
