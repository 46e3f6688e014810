package dev.flinklance.sink.committer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

import dev.flinklance.access.LanceDatasetOptions;
import dev.flinklance.access.VersionMark;
import dev.flinklance.commit.CommitStamp;
import dev.flinklance.errors.LanceDatasetException;
import dev.flinklance.errors.PermanentDatasetException;
import dev.flinklance.errors.TableReplacedException;
import dev.flinklance.sink.LanceSinkConfig;
import dev.flinklance.sink.LanceSinkOptions;
import dev.flinklance.sink.testing.RecordingCommitRequest;
import dev.flinklance.sink.testing.RecordingCommitRequest.Outcome;
import dev.flinklance.sink.testing.TestCommitterContext;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.LanceTestTables.Commit;
import dev.flinklance.testing.TestFiles;
import dev.flinklance.testing.TestFragments;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.api.connector.sink2.Committer.CommitRequest;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.cleanup.CleanupPolicy;

/**
 * The commit protocol against real Lance tables: ordering, stamps, recognising committables that
 * already landed (after a restore, a failover, a retried BATCH commit), retries, a replaced table.
 * Every new committer instance here stands for a committer after a failover or restore.
 */
class LanceCommitterTest {
  private static final String USER = "user-a";

  @TempDir Path dir;
  private String table;
  private long nextId;

  @BeforeEach
  void createTable() {
    table = dir.resolve("t").toString();
    TestFragments.createTable(table);
  }

  @Test
  void commitsEachCheckpointOnceInCheckpointOrderWithItsStamp() throws Exception {
    Run run = new Run();
    LanceCommittable first = run.next(1);
    LanceCommittable second = run.next(2);
    LanceCommittable third = run.next(3);
    commitWithNewCommitter(third, first, second);

    assertThat(LanceTestTables.sinkCommits(table))
        .extracting(Commit::version, Commit::checkpointId, Commit::commitUser, Commit::runSeq)
        .containsExactly(tuple(2L, 1L, USER, 1L), tuple(3L, 2L, USER, 2L), tuple(4L, 3L, USER, 3L));
    assertThat(LanceTestTables.sinkCommits(table)).extracting(Commit::run).containsOnly(run.id);
    assertThat(LanceTestTables.countRows(table)).isEqualTo(3);
  }

  @Test
  void committablesThatLandedBeforeAFailoverAreAcknowledgedWithoutACommit() throws Exception {
    Run run = new Run();
    LanceCommittable one = run.next(1);
    LanceCommittable two = run.next(2);
    LanceCommittable three = run.next(3);
    commitWithNewCommitter(one, two);

    Run restarted = new Run();
    assertThat(outcomes(commitWithNewCommitter(two, three, restarted.next(4))))
        .containsExactly(Outcome.ALREADY_COMMITTED, Outcome.COMMITTED, Outcome.COMMITTED);
    assertThat(checkpoints()).containsExactly(1L, 2L, 3L, 4L);
  }

  /** Issue: a configured commit user restarted fresh reuses checkpoint ids of an earlier job. */
  @Test
  void aFreshJobWithTheSameCommitUserIsNotMistakenForTheEarlierOne() throws Exception {
    Run earlierJob = new Run();
    for (long checkpoint = 1; checkpoint <= 10; checkpoint++) {
      commitWithNewCommitter(earlierJob.next(checkpoint));
    }

    Run freshJob = new Run();
    LanceCommittable firstCheckpoint = freshJob.next(1);
    // the fresh job fails before its first commit and restores checkpoint 1
    assertThat(outcomes(commitWithNewCommitter(firstCheckpoint)))
        .containsExactly(Outcome.COMMITTED);
    assertThat(LanceTestTables.countRows(table)).isEqualTo(11);
  }

  /**
   * Issue: a restore from an older savepoint, then a failover before the new run's first commit:
   * the table has higher checkpoint ids of this commit user, the new run's checkpoint is new.
   */
  @Test
  void aNewRunAfterAnOlderSavepointIsNotMistakenForTheLaterCheckpoints() throws Exception {
    Run original = new Run();
    LanceCommittable inSavepoint = original.next(5);
    commitWithNewCommitter(inSavepoint, original.next(6), original.next(7));

    Run restoredFromSavepoint = new Run();
    LanceCommittable newCheckpoint6 = restoredFromSavepoint.next(6);
    assertThat(outcomes(commitWithNewCommitter(inSavepoint)))
        .containsExactly(Outcome.ALREADY_COMMITTED);
    // failover before the new run's first commit: checkpoint 6 comes back from state
    assertThat(outcomes(commitWithNewCommitter(newCheckpoint6))).containsExactly(Outcome.COMMITTED);
    assertThat(checkpoints()).containsExactly(5L, 6L, 7L, 6L);
  }

  /** Issue: an end-of-input commit stamped with a huge checkpoint id hides nothing. */
  @Test
  void anEndOfInputCommitDoesNotHideLaterRuns() throws Exception {
    commitWithNewCommitter(new Run().next(Long.MAX_VALUE));

    Run later = new Run();
    LanceCommittable restored = later.next(3);
    assertThat(outcomes(commitWithNewCommitter(restored))).containsExactly(Outcome.COMMITTED);
    assertThat(LanceTestTables.countRows(table)).isEqualTo(2);
  }

  /** Issue: BATCH mode has no checkpoint to restore; a re-run committer gets the same input. */
  @Test
  void aBatchCommitRetriedAfterItLandedIsNotCommittedTwice() throws Exception {
    LanceCommittable endOfInput = new Run().next(1);
    commitWithNewCommitter(endOfInput);

    assertThat(outcomes(commitWithNewCommitter(endOfInput)))
        .containsExactly(Outcome.ALREADY_COMMITTED);
    assertThat(LanceTestTables.countRows(table)).isEqualTo(1);
  }

  @Test
  void otherRunsDoNotCountAsThisRunsCommits() throws Exception {
    Run mine = new Run();
    LanceCommittable pending = mine.next(5);
    commitWithNewCommitter(new Run().next(5), new Run().next(6));

    assertThat(outcomes(commitWithNewCommitter(pending))).containsExactly(Outcome.COMMITTED);
    assertThat(LanceTestTables.countRows(table)).isEqualTo(3);
  }

  @Test
  void historyWalkIsBoundedAndDegradesToCommitting() throws Exception {
    Run run = new Run();
    LanceCommittable landed = run.next(1);
    commitWithNewCommitter(landed);
    for (int i = 0; i < 4; i++) {
      commitWithNewCommitter(new Run().next(10 + i));
    }

    Configuration bounded = new Configuration();
    bounded.set(LanceSinkOptions.SINK_COMMIT_DEDUPE_MAX_VERSIONS, 3);
    assertThat(outcomes(commit(new LanceCommitter(config(bounded), context()), landed)))
        .as("not found within 3 versions: committed (at-least-once), never a crash")
        .containsExactly(Outcome.COMMITTED);
    assertThat(checkpoints()).filteredOn(id -> id == 1).hasSize(2);
  }

  @Test
  void historyWalkStopsAtCleanedUpVersions() throws Exception {
    Run run = new Run();
    LanceCommittable pending = run.next(2);
    commitWithNewCommitter(run.next(1));
    commitWithNewCommitter(new Run().next(10), new Run().next(11));
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open().allocator(allocator).uri(table).build()) {
      dataset.cleanupWithPolicy(
          CleanupPolicy.builder().withBeforeVersion(dataset.version()).build());
    }

    assertThat(outcomes(commitWithNewCommitter(pending))).containsExactly(Outcome.COMMITTED);
    assertThat(LanceTestTables.latestVersion(table)).isEqualTo(5);
  }

  @Test
  void anAttemptThatFailedAfterLandingIsNotCommittedTwice() throws Exception {
    AtomicInteger failures = new AtomicInteger(1);
    StampedCommit landsThenFails =
        new StampedCommit(config().dataset(), 0, null) {
          @Override
          Committed commit(Dataset current, LanceCommittable committable) {
            Committed committed = super.commit(current, committable);
            if (failures.getAndDecrement() > 0) {
              committed.dataset().close();
              throw new IllegalStateException("injected: the response of a landed commit was lost");
            }
            return committed;
          }
        };
    Run run = new Run();
    try (LanceCommitter committer = new LanceCommitter(config(), context(), landsThenFails)) {
      assertThat(outcomes(commit(committer, run.next(1), run.next(2))))
          .containsExactly(Outcome.COMMITTED, Outcome.COMMITTED);
    }
    assertThat(checkpoints()).containsExactly(1L, 2L);
  }

  @Test
  void anAttemptThatFailedBeforeLandingIsRetried() throws Exception {
    AtomicInteger failures = new AtomicInteger(2);
    StampedCommit failsTwice =
        new StampedCommit(config().dataset(), 0, null) {
          @Override
          Committed commit(Dataset current, LanceCommittable committable) {
            if (failures.getAndDecrement() > 0) {
              throw new IllegalStateException("injected: object store unavailable");
            }
            return super.commit(current, committable);
          }
        };
    try (LanceCommitter committer = new LanceCommitter(config(), context(), failsTwice)) {
      commit(committer, new Run().next(1));
    }
    assertThat(checkpoints()).containsExactly(1L);
  }

  @Test
  void whenEveryAttemptFailsLaterCheckpointsOfTheSameCallAreNotCommitted() throws Exception {
    Configuration twoAttempts = new Configuration();
    twoAttempts.set(LanceSinkOptions.SINK_COMMIT_MAX_ATTEMPTS, 2);
    StampedCommit failsCheckpointOne =
        new StampedCommit(config().dataset(), 0, null) {
          @Override
          Committed commit(Dataset current, LanceCommittable committable) {
            if (committable.checkpointId() == 1) {
              throw new IllegalStateException("injected: object store unavailable");
            }
            return super.commit(current, committable);
          }
        };
    Run run = new Run();
    List<RecordingCommitRequest<LanceCommittable>> requests =
        requests(run.next(1), run.next(2), run.next(3));
    try (LanceCommitter committer =
        new LanceCommitter(config(twoAttempts), context(), failsCheckpointOne)) {
      assertThatThrownBy(() -> committer.commit(new ArrayList<>(requests)))
          .hasMessageContaining("checkpointId=1")
          .hasRootCauseMessage("injected: object store unavailable");
    }
    assertThat(outcomes(requests))
        .containsExactly(Outcome.FAILED, Outcome.RETRY_LATER, Outcome.RETRY_LATER);
    assertThat(LanceTestTables.latestVersion(table)).isEqualTo(1);
  }

  @Test
  void aPermanentErrorIsNotRetried() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    StampedCommit accessDenied =
        new StampedCommit(config().dataset(), 0, null) {
          @Override
          Committed commit(Dataset current, LanceCommittable committable) {
            attempts.incrementAndGet();
            throw new PermanentDatasetException(table, "injected: access denied", null);
          }
        };
    Run run = new Run();
    List<RecordingCommitRequest<LanceCommittable>> requests = requests(run.next(1), run.next(2));
    try (LanceCommitter committer = new LanceCommitter(config(), context(), accessDenied)) {
      assertThatThrownBy(() -> committer.commit(new ArrayList<>(requests)))
          .hasRootCauseMessage("Lance table '" + table + "': injected: access denied");
    }
    assertThat(attempts).hasValue(1);
    assertThat(outcomes(requests)).containsExactly(Outcome.FAILED, Outcome.RETRY_LATER);
  }

  /**
   * A conflict that outlasts Lance's own rebases goes back to Flink, which calls again at once
   * (FlinkRetryLaterITCase): no wait on the task thread, and no later checkpoint before it.
   */
  @Test
  void aConflictLeftAfterLancesRebasesIsRetriedByFlinkInOrder() throws Exception {
    AtomicInteger conflicts = new AtomicInteger(1);
    StampedCommit conflictsOnce =
        new StampedCommit(config().dataset(), 0, null) {
          @Override
          Committed commit(Dataset current, LanceCommittable committable) {
            if (conflicts.getAndDecrement() > 0) {
              throw LanceDatasetException.wrap(
                  table,
                  "cannot commit checkpoint " + committable.checkpointId(),
                  new IllegalStateException("Retryable commit conflict for version 3: injected"));
            }
            return super.commit(current, committable);
          }
        };
    Run run = new Run();
    List<RecordingCommitRequest<LanceCommittable>> requests = requests(run.next(1), run.next(2));
    try (LanceCommitter committer = new LanceCommitter(config(), context(), conflictsOnce)) {
      committer.commit(new ArrayList<>(requests));
      assertThat(outcomes(requests)).containsExactly(Outcome.RETRY_LATER, Outcome.RETRY_LATER);
      assertThat(LanceTestTables.latestVersion(table)).isEqualTo(1);

      requests.forEach(RecordingCommitRequest::reoffer); // Flink's retry
      committer.commit(new ArrayList<>(requests));
    }
    assertThat(outcomes(requests)).containsExactly(Outcome.COMMITTED, Outcome.COMMITTED);
    assertThat(checkpoints()).containsExactly(1L, 2L);
  }

  @Test
  void aTableRecreatedUnderTheCommitterIsNeverWritten() throws Exception {
    Run run = new Run();
    try (LanceCommitter committer = new LanceCommitter(config(), context())) {
      commit(committer, run.next(1), run.next(2));
      recreateTable(1);

      assertThatThrownBy(() -> commit(committer, run.next(3)))
          .rootCause()
          .isInstanceOf(TableReplacedException.class)
          .hasMessageContaining("Lance table '" + table + "': the table was replaced")
          .hasMessageContaining("its latest version is 1, but this job already saw version 3");
    }
    assertThat(LanceTestTables.latestVersion(table)).isEqualTo(1);
    assertThat(LanceTestTables.countRows(table)).isZero();
  }

  @Test
  void aRecreatedTableThatCaughtUpIsRecognisedByItsCommitInstants() throws Exception {
    Run run = new Run();
    try (LanceCommitter committer = new LanceCommitter(config(), context())) {
      commit(committer, run.next(1));
      recreateTable(4);

      assertThatThrownBy(() -> commit(committer, run.next(2)))
          .rootCause()
          .isInstanceOf(TableReplacedException.class)
          .hasMessageContaining("version 2 was committed at");
    }
    assertThat(LanceTestTables.latestVersion(table)).isEqualTo(4);
  }

  @Test
  void committablesWrittenForAReplacedTableAreNotCommittedAfterARestart() throws Exception {
    Run run = new Run();
    commitWithNewCommitter(run.next(1), run.next(2));
    LanceCommittable pending = run.next(3);
    recreateTable(1);

    assertThatThrownBy(() -> commitWithNewCommitter(pending))
        .hasRootCauseInstanceOf(TableReplacedException.class);
    assertThat(LanceTestTables.latestVersion(table)).isEqualTo(1);
  }

  /**
   * Issue 28: a transient failure, then the table is dropped and recreated while the committer
   * backs off; the retry must not commit the old run's checkpoint as a version of the new table.
   */
  @Test
  void aTableRecreatedWhileACommitIsRetriedIsNeverWritten() throws Exception {
    AtomicInteger failures = new AtomicInteger(1);
    StampedCommit failsWhileTheTableIsRecreated =
        new StampedCommit(config().dataset(), 0, null) {
          @Override
          Committed commit(Dataset current, LanceCommittable committable) {
            if (committable.checkpointId() == 2 && failures.getAndDecrement() > 0) {
              recreateTable(5);
              throw new IllegalStateException("injected: object store unavailable");
            }
            return super.commit(current, committable);
          }
        };
    Run run = new Run();
    LanceCommittable first = run.next(1);
    LanceCommittable second = run.next(2);
    try (LanceCommitter committer =
        new LanceCommitter(config(), context(), failsWhileTheTableIsRecreated)) {
      commit(committer, first);
      List<RecordingCommitRequest<LanceCommittable>> requests = requests(second);
      assertThatThrownBy(() -> committer.commit(new ArrayList<>(requests)))
          .rootCause()
          .isInstanceOf(TableReplacedException.class)
          .hasMessageContaining("Lance table '" + table + "': the table was replaced")
          .hasMessageContaining("version 2 was committed at");
      assertThat(outcomes(requests)).containsExactly(Outcome.FAILED);
    }
    assertThat(LanceTestTables.latestVersion(table)).isEqualTo(5);
    assertThat(LanceTestTables.sinkCommits(table)).isEmpty();
    assertThat(LanceTestTables.countRows(table)).isZero();
  }

  /** Issue 28: dropped (and not recreated) while the committer backs off. */
  @Test
  void aTableDroppedWhileACommitIsRetriedFailsAsGone() throws Exception {
    AtomicInteger failures = new AtomicInteger(1);
    StampedCommit failsWhileTheTableIsDropped =
        new StampedCommit(config().dataset(), 0, null) {
          @Override
          Committed commit(Dataset current, LanceCommittable committable) {
            if (committable.checkpointId() == 2 && failures.getAndDecrement() > 0) {
              dropTable();
              throw new IllegalStateException("injected: object store unavailable");
            }
            return super.commit(current, committable);
          }
        };
    Run run = new Run();
    try (LanceCommitter committer =
        new LanceCommitter(config(), context(), failsWhileTheTableIsDropped)) {
      commit(committer, run.next(1));
      assertThatThrownBy(() -> commit(committer, run.next(2)))
          .rootCause()
          .isInstanceOf(TableReplacedException.class)
          .hasMessageContaining("there is no table at the URI any more");
    }
    assertThat(LanceTestTables.exists(table)).isFalse();
  }

  @Test
  void overwriteReplacesTheRowsInOneStampedCommit() throws Exception {
    Run appends = new Run();
    commitWithNewCommitter(appends.next(1), appends.next(2));

    Run overwrite = new Run();
    LanceCommittable replacement =
        new LanceCommittable(
            new CommitStamp(USER, overwrite.id, 1, 1, "job"),
            overwrite.start,
            true,
            TestFragments.write(table, 100, 101, 102));
    commitWithNewCommitter(replacement);

    assertThat(LanceTestTables.readLongs(table, "id")).containsExactlyInAnyOrder(100L, 101L, 102L);
    Commit last = LanceTestTables.commits(table).get(3);
    assertThat(last.operation()).isEqualTo("Overwrite");
    assertThat(last.run()).isEqualTo(overwrite.id);
    assertThat(outcomes(commitWithNewCommitter(replacement)))
        .as("a replayed overwrite is recognised like an append")
        .containsExactly(Outcome.ALREADY_COMMITTED);
  }

  /** One sink run: committables numbered from 1, started at the table's version of now. */
  private final class Run {
    final String id = UUID.randomUUID().toString();
    final VersionMark start = currentMark();
    long seq;

    LanceCommittable next(long checkpointId) {
      return new LanceCommittable(
          new CommitStamp(USER, id, ++seq, checkpointId, "job"),
          start,
          false,
          TestFragments.write(table, nextId++));
    }
  }

  private VersionMark currentMark() {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open().allocator(allocator).uri(table).build()) {
      return VersionMark.of(dataset);
    }
  }

  private void dropTable() {
    try {
      TestFiles.deleteRecursively(Path.of(table));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void recreateTable(int versions) {
    TestFragments.recreateTable(table, versions);
  }

  private List<RecordingCommitRequest<LanceCommittable>> commitWithNewCommitter(
      LanceCommittable... committables) throws Exception {
    try (LanceCommitter committer = new LanceCommitter(config(), context())) {
      return commit(committer, committables);
    }
  }

  private static List<RecordingCommitRequest<LanceCommittable>> commit(
      LanceCommitter committer, LanceCommittable... committables) throws Exception {
    List<RecordingCommitRequest<LanceCommittable>> requests = requests(committables);
    Collection<CommitRequest<LanceCommittable>> asRequests = new ArrayList<>(requests);
    committer.commit(asRequests);
    return requests;
  }

  private static List<RecordingCommitRequest<LanceCommittable>> requests(
      LanceCommittable... committables) {
    List<RecordingCommitRequest<LanceCommittable>> requests = new ArrayList<>();
    for (LanceCommittable committable : committables) {
      requests.add(new RecordingCommitRequest<>(committable));
    }
    return requests;
  }

  private static List<Outcome> outcomes(List<RecordingCommitRequest<LanceCommittable>> requests) {
    return requests.stream().map(RecordingCommitRequest::outcome).toList();
  }

  private List<Long> checkpoints() {
    return LanceTestTables.sinkCommits(table).stream().map(Commit::checkpointId).toList();
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
    return LanceSinkConfig.from(conf);
  }
}
