package dev.flinklance.sink.committer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.access.LanceDatasetOptions;
import dev.flinklance.access.VersionMark;
import dev.flinklance.commit.CommitStamp;
import dev.flinklance.errors.LanceDatasetException;
import dev.flinklance.errors.TableReplacedException;
import dev.flinklance.index.KeyIndex;
import dev.flinklance.index.ScalarIndex;
import dev.flinklance.key.PrimaryKey;
import dev.flinklance.key.RowKey;
import dev.flinklance.sink.LanceSinkConfig;
import dev.flinklance.sink.LanceSinkOptions;
import dev.flinklance.sink.keys.ChangedKeys;
import dev.flinklance.sink.testing.RecordingCommitRequest;
import dev.flinklance.sink.testing.RecordingCommitRequest.Outcome;
import dev.flinklance.sink.testing.TestCommitterContext;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.LanceTestTables.Commit;
import dev.flinklance.testing.TestFiles;
import dev.flinklance.testing.TestFragments;
import dev.flinklance.testing.TestRows;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.flink.api.connector.sink2.Committer.CommitRequest;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.WriteParams;

/**
 * Upsert commits against real Lance tables: rows replaced and deleted by key in one stamped Update,
 * a conflicting compaction that lands between the lookup and the commit, the key index built and
 * kept up to date, and what an updated row's lineage becomes on a stable-row-id table.
 */
class UpsertCommitTest {
  private static final PrimaryKey KEY = PrimaryKey.of(TestRows.ROW_TYPE, List.of("id"), "t");

  @TempDir Path dir;
  private String table;

  @BeforeEach
  void createTable() {
    table = dir.resolve("t").toString();
    TestFragments.createTable(table);
  }

  @Test
  void rowsOfChangedKeysAreReplacedOrDeletedInOneStampedUpdate() throws Exception {
    LanceTestTables.appendFragments(table, TestFragments.write(table, 0, 1, 2));
    LanceTestTables.appendFragments(table, TestFragments.write(table, 3, 4, 5));
    Run run = new Run();
    // 1 and 3 updated, 2 deleted, 9 inserted, 99 deleted though absent
    LanceCommittable changes =
        run.next(TestFragments.writeTagged(table, "v2", 1, 3, 9), keys(1, 2, 3, 9, 99));
    // every row of the first fragment goes: it is removed, not kept with a deletion file
    LanceCommittable later = run.next(TestFragments.writeTagged(table, "v3", 0), keys(0, 1, 2));

    commit(changes, later);

    assertThat(names())
        .isEqualTo(Map.of(0L, "v3-0", 3L, "v2-3", 4L, "name-4", 5L, "name-5", 9L, "v2-9"));
    assertThat(LanceTestTables.sinkCommits(table))
        .extracting(Commit::operation)
        .containsExactly("Update", "Update");
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open(table, allocator)) {
      assertThat(dataset.getFragments()).extracting(Fragment::getId).doesNotContain(0);
    }
    assertThat(outcomes(commit(later)))
        .as("a replay is recognised by its stamp, as for appends")
        .containsExactly(Outcome.ALREADY_COMMITTED);
  }

  /**
   * A compaction rewrites the fragment the update deletes from after the lookup: the commit
   * conflicts, is planned again on the compacted version, and deletes the row where it is now.
   */
  @Test
  void aCompactionBetweenTheLookupAndTheCommitIsPlannedAgain() throws Exception {
    for (long first = 0; first < 40; first += 10) {
      LanceTestTables.appendFragments(
          table, TestFragments.write(table, LongStream.range(first, first + 10).toArray()));
    }
    AtomicInteger plans = new AtomicInteger();
    StampedCommit compactedInBetween =
        new StampedCommit(config().dataset(), 3, KEY) {
          @Override
          KeyedUpdate plan(Dataset base, LanceCommittable committable, List<RowKey> keys) {
            KeyedUpdate planned = super.plan(base, committable, keys);
            if (plans.getAndIncrement() == 0) {
              try (BufferAllocator allocator = new RootAllocator();
                  Dataset other = Dataset.open(table, allocator)) {
                other.compact();
              }
            }
            return planned;
          }
        };
    Run run = new Run();
    LanceCommittable changes =
        run.next(TestFragments.writeTagged(table, "v2", 5, 25, 50), keys(5, 25, 33, 50));

    try (LanceCommitter committer = new LanceCommitter(config(), context(), compactedInBetween)) {
      assertThat(outcomes(commit(committer, changes))).containsExactly(Outcome.COMMITTED);
    }

    assertThat(plans).as("planned once, then again after the conflict").hasValue(2);
    Map<Long, String> expected = new TreeMap<>();
    LongStream.range(0, 40).forEach(id -> expected.put(id, "name-" + id));
    expected.remove(33L);
    expected.put(5L, "v2-5");
    expected.put(25L, "v2-25");
    expected.put(50L, "v2-50");
    assertThat(names()).isEqualTo(expected);
    assertThat(LanceTestTables.commits(table))
        .extracting(Commit::operation)
        .containsSubsequence(
            "CreateIndex", "ReserveFragments", LanceTestTables.UNREADABLE, "Update");
    assertThat(outcomes(commit(changes)))
        .as("a replay is recognised across the compaction, whose transaction Lance cannot read")
        .containsExactly(Outcome.ALREADY_COMMITTED);
  }

  /**
   * Issue 28: an upsert that conflicts is planned again on the newest version, which must be a
   * version of the same table: here the table was dropped and recreated in between.
   */
  @Test
  void anUpsertIsNotPlannedAgainOnATableRecreatedAfterAConflict() throws Exception {
    LanceTestTables.appendFragments(table, TestFragments.write(table, 0, 1, 2));
    AtomicInteger plans = new AtomicInteger();
    StampedCommit recreatedInBetween =
        new StampedCommit(config().dataset(), 3, KEY) {
          @Override
          KeyedUpdate plan(Dataset base, LanceCommittable committable, List<RowKey> keys) {
            KeyedUpdate planned = super.plan(base, committable, keys);
            if (plans.getAndIncrement() == 0) {
              TestFragments.recreateTable(table, 4);
              LanceTestTables.appendFragments(table, TestFragments.writeTagged(table, "new", 1));
              throw LanceDatasetException.wrap(
                  table,
                  "cannot commit checkpoint 1",
                  new IllegalStateException("Retryable commit conflict for version 3: injected"));
            }
            return planned;
          }
        };
    Run run = new Run();
    LanceCommittable changes = run.next(TestFragments.writeTagged(table, "v2", 1), keys(1, 2));

    try (LanceCommitter committer = new LanceCommitter(config(), context(), recreatedInBetween)) {
      assertThatThrownBy(() -> commit(committer, changes))
          .rootCause()
          .isInstanceOf(TableReplacedException.class)
          .hasMessageContaining("Lance table '" + table + "': the table was replaced");
    }
    assertThat(plans).as("never planned on the new table").hasValue(1);
    assertThat(names()).isEqualTo(Map.of(1L, "new-1"));
    assertThat(LanceTestTables.sinkCommits(table)).isEmpty();
  }

  /** Issue 28: the lookup of the changed keys meets a dropped table: it says so. */
  @Test
  void aKeyLookupThatMeetsADroppedTableSaysTheTableIsGone() throws Exception {
    LanceTestTables.appendFragments(table, TestFragments.write(table, 0, 1, 2));
    StampedCommit droppedBeforeTheLookup =
        new StampedCommit(config().dataset(), 3, KEY) {
          @Override
          KeyedUpdate plan(Dataset base, LanceCommittable committable, List<RowKey> keys) {
            try {
              TestFiles.deleteRecursively(Path.of(table));
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
            return super.plan(base, committable, keys);
          }
        };
    Configuration oneAttempt = new Configuration();
    oneAttempt.set(LanceSinkOptions.SINK_COMMIT_MAX_ATTEMPTS, 1);
    LanceCommittable changes = new Run().next(List.of(), keys(1));

    try (LanceCommitter committer =
        new LanceCommitter(config(oneAttempt), context(), droppedBeforeTheLookup)) {
      assertThatThrownBy(() -> commit(committer, changes))
          .rootCause()
          .isInstanceOf(TableReplacedException.class)
          .hasMessageContaining("there is no table at the URI any more")
          .satisfies(
              e ->
                  assertThat(e.getSuppressed())
                      .singleElement()
                      .satisfies(
                          lookup ->
                              assertThat(lookup).hasMessageContaining("cannot look up the rows")));
    }
  }

  @Test
  void theKeyIndexIsBuiltBeforeTheFirstUpsertAndKeptUpToDate() throws Exception {
    LanceTestTables.appendFragments(table, TestFragments.write(table, 0, 1, 2));
    Run run = new Run();
    commit(run.next(TestFragments.writeTagged(table, "v2", 1), keys(1)));
    assertThat(coverage()).as("built over the table as it was").containsExactly(0);

    long[] many = LongStream.range(10, 10 + 100_000).toArray();
    commit(run.next(TestFragments.writeTagged(table, "v3", many), keys(2)));

    assertThat(coverage())
        .as("100,000 unindexed rows: brought up to date")
        .containsExactlyInAnyOrderElementsOf(fragmentIds());
    assertThat(LanceTestTables.countRows(table)).isEqualTo(3 + 100_000 - 1);
  }

  @Test
  void noKeyIndexIsBuiltWhenSwitchedOff() throws Exception {
    LanceTestTables.appendFragments(table, TestFragments.write(table, 0, 1, 2));
    Configuration noIndex = new Configuration();
    noIndex.set(LanceSinkOptions.SINK_UPSERT_KEY_INDEX, false);
    try (LanceCommitter committer = new LanceCommitter(config(noIndex), context())) {
      commit(committer, new Run().next(TestFragments.writeTagged(table, "v2", 1), keys(1)));
    }
    assertThat(names()).containsEntry(1L, "v2-1").hasSize(3);
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open(table, allocator)) {
      assertThat(ScalarIndex.btreesOf(dataset)).isEmpty();
    }
  }

  /**
   * An upsert deletes the old row and writes a new one: on a stable-row-id table the row gets a new
   * row id, created and last updated at the commit's version. Lance's own merge-insert on the same
   * table keeps the row id and the creation version and sets the last update.
   */
  @Test
  void anUpdatedRowOfAStableRowIdTableGetsANewRowIdUnlikeMergeInsert() throws Exception {
    table = dir.resolve("stable").toString();
    try (BufferAllocator allocator = new RootAllocator();
        Dataset ignored =
            Dataset.create(
                allocator,
                table,
                TestFragments.SCHEMA,
                new WriteParams.Builder().withEnableStableRowIds(true).build())) {
      // created
    }
    LanceTestTables.appendFragments(table, TestFragments.write(table, 0, 1, 2));
    List<Object> before = lineageOf(1);

    commit(new Run().next(TestFragments.writeTagged(table, "v2", 1), keys(1)));

    long version = LanceTestTables.latestVersion(table);
    List<Object> after = lineageOf(1);
    assertThat(after.get(0)).as("a new _rowid").isNotEqualTo(before.get(0));
    assertThat(after.subList(1, 3))
        .as("_row_created_at_version, _row_last_updated_at_version")
        .containsExactly(version, version);
    assertThat(before.subList(1, 3)).containsExactly(2L, 2L);
    assertThat(lineageOf(0)).as("rows not changed keep theirs").containsExactly(0L, 2L, 2L);

    List<Object> beforeMerge = lineageOf(2);
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open(table, allocator);
        VectorSchemaRoot row = VectorSchemaRoot.create(TestFragments.SCHEMA, allocator)) {
      ((BigIntVector) row.getVector("id")).setSafe(0, 2);
      ((VarCharVector) row.getVector("name")).setSafe(0, "merged".getBytes());
      row.setRowCount(1);
      LanceTestTables.mergeInsert(dataset, List.of("id"), row).close();
    }
    assertThat(lineageOf(2))
        .as("merge-insert: the same _rowid and creation, a new last update")
        .containsExactly(
            beforeMerge.get(0), beforeMerge.get(1), LanceTestTables.latestVersion(table));
  }

  private List<Object> lineageOf(long id) {
    return LanceTestTables.readColumns(
            table,
            List.of("id", "_rowid", "_row_created_at_version", "_row_last_updated_at_version"))
        .stream()
        .filter(row -> row.get(0).equals(id))
        .findFirst()
        .orElseThrow()
        .subList(1, 4);
  }

  private List<Integer> coverage() {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open(table, allocator)) {
      return KeyIndex.of(dataset, KEY).get("id").fragmentIds().stream().sorted().toList();
    }
  }

  private List<Integer> fragmentIds() {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open(table, allocator)) {
      return dataset.getFragments().stream().map(Fragment::getId).toList();
    }
  }

  private Map<Long, String> names() {
    Map<Long, String> names = new TreeMap<>();
    for (List<Object> row : LanceTestTables.readColumns(table, List.of("id", "name"))) {
      String previous = names.put((Long) row.get(0), row.get(1).toString());
      assertThat(previous).as("key %s has one row", row.get(0)).isNull();
    }
    return names;
  }

  private static List<RowKey> keys(long... ids) {
    List<RowKey> keys = new ArrayList<>();
    for (long id : ids) {
      keys.add(KEY.keyOf(TestRows.row(id)));
    }
    return keys;
  }

  /** One sink run: committables numbered from 1, started at the table's version of now. */
  private final class Run {
    final String id = UUID.randomUUID().toString();
    final VersionMark start;
    long seq;

    Run() {
      try (BufferAllocator allocator = new RootAllocator();
          Dataset dataset = Dataset.open(table, allocator)) {
        start = VersionMark.of(dataset);
      }
    }

    LanceCommittable next(List<FragmentMetadata> fragments, List<RowKey> removedKeys) {
      seq++;
      return new LanceCommittable(
          new CommitStamp("user", id, seq, seq, "job"),
          start,
          false,
          fragments,
          ChangedKeys.inline(removedKeys));
    }
  }

  private List<RecordingCommitRequest<LanceCommittable>> commit(LanceCommittable... committables)
      throws Exception {
    try (LanceCommitter committer = new LanceCommitter(config(), context())) {
      return commit(committer, committables);
    }
  }

  private static List<RecordingCommitRequest<LanceCommittable>> commit(
      LanceCommitter committer, LanceCommittable... committables) throws Exception {
    List<RecordingCommitRequest<LanceCommittable>> requests = new ArrayList<>();
    for (LanceCommittable committable : committables) {
      requests.add(new RecordingCommitRequest<>(committable));
    }
    committer.commit(new ArrayList<CommitRequest<LanceCommittable>>(requests));
    return requests;
  }

  private static List<Outcome> outcomes(List<RecordingCommitRequest<LanceCommittable>> requests) {
    return requests.stream().map(RecordingCommitRequest::outcome).toList();
  }

  private static TestCommitterContext context() {
    return TestCommitterContext.fresh();
  }

  private LanceSinkConfig config() {
    return config(new Configuration());
  }

  private LanceSinkConfig config(Configuration overrides) {
    Configuration conf = new Configuration(overrides);
    conf.set(LanceDatasetOptions.PATH, table);
    return LanceSinkConfig.from(conf, false, KEY);
  }
}
