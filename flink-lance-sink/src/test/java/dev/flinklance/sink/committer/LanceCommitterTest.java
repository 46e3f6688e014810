package dev.flinklance.sink.committer;
import dev.flinklance.dataset.LanceDatasetOptions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.sink.LanceSinkConfig;
import dev.flinklance.sink.LanceSinkOptions;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.LanceTestTables.Commit;
import dev.flinklance.sink.testing.RecordingCommitRequest;
import dev.flinklance.sink.testing.RecordingCommitRequest.Outcome;
import dev.flinklance.sink.testing.TestCommitterContext;
import dev.flinklance.testing.TestFragments;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
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

/** The commit protocol against real Lance tables: ordering, stamps, replay dedupe, retries. */
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
    try (LanceCommitter committer = committer(TestCommitterContext.fresh(), config())) {
      commit(committer, committable(USER, 3), committable(USER, 1), committable(USER, 2));
    }
    assertThat(LanceTestTables.sinkCommits(table))
        .extracting(Commit::version, Commit::checkpointId, Commit::commitUser)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(2L, 1L, USER),
            org.assertj.core.groups.Tuple.tuple(3L, 2L, USER),
            org.assertj.core.groups.Tuple.tuple(4L, 3L, USER));
    assertThat(LanceTestTables.countRows(table)).isEqualTo(3);
  }

  @Test
  void restoredCommittablesAlreadyInTheTableAreAcknowledgedWithoutACommit() throws Exception {
    commitFresh(committable(USER, 1), committable(USER, 2), committable(USER, 3));

    try (LanceCommitter restored = committer(TestCommitterContext.restoredFrom(3), config())) {
      List<RecordingCommitRequest<LanceCommittable>> requests =
          commit(restored, committable(USER, 2), committable(USER, 3), committable(USER, 4));
      assertThat(requests)
          .extracting(RecordingCommitRequest::outcome)
          .containsExactly(Outcome.ALREADY_COMMITTED, Outcome.ALREADY_COMMITTED, Outcome.COMMITTED);
    }
    assertThat(checkpointsOf(USER)).containsExactly(1L, 2L, 3L, 4L);
  }

  @Test
  void restoredCommittableMissingFromTheTableIsCommitted() throws Exception {
    commitFresh(committable(USER, 1));

    try (LanceCommitter restored = committer(TestCommitterContext.restoredFrom(2), config())) {
      assertThat(commit(restored, committable(USER, 2)))
          .extracting(RecordingCommitRequest::outcome)
          .containsExactly(Outcome.COMMITTED);
    }
    assertThat(checkpointsOf(USER)).containsExactly(1L, 2L);
  }

  @Test
  void otherCommitUsersDoNotCountAsOurCommits() throws Exception {
    commitFresh(committable(USER, 1), committable("user-b", 5));

    try (LanceCommitter restored = committer(TestCommitterContext.restoredFrom(5), config())) {
      assertThat(commit(restored, committable(USER, 5)))
          .extracting(RecordingCommitRequest::outcome)
          .containsExactly(Outcome.COMMITTED);
    }
    assertThat(checkpointsOf(USER)).containsExactly(1L, 5L);
  }

  /**
   * Restoring from an OLDER savepoint: the table already has later checkpoints of the same user.
   * Restored committables that were committed are skipped, but new ones are never mistaken for
   * replays, so no data is lost.
   */
  @Test
  void committablesCreatedAfterTheRestoreAreNeverSkipped() throws Exception {
    commitFresh(committable(USER, 5), committable(USER, 6), committable(USER, 7));

    try (LanceCommitter restored = committer(TestCommitterContext.restoredFrom(5), config())) {
      assertThat(commit(restored, committable(USER, 5), committable(USER, 6)))
          .extracting(RecordingCommitRequest::outcome)
          .containsExactly(Outcome.ALREADY_COMMITTED, Outcome.COMMITTED);
    }
    assertThat(checkpointsOf(USER)).containsExactly(5L, 6L, 7L, 6L);
  }

  @Test
  void historyWalkIsBoundedAndDegradesToCommitting() throws Exception {
    commitFresh(committable(USER, 1));
    for (int i = 0; i < 4; i++) {
      commitFresh(committable("user-b", 10 + i));
    }

    Configuration bounded = new Configuration();
    bounded.set(LanceSinkOptions.SINK_COMMIT_DEDUPE_MAX_VERSIONS, 3);
    try (LanceCommitter restored =
        committer(TestCommitterContext.restoredFrom(1), config(bounded))) {
      assertThat(commit(restored, committable(USER, 1)))
          .as("not found within 3 versions: committed (at-least-once), never a crash")
          .extracting(RecordingCommitRequest::outcome)
          .containsExactly(Outcome.COMMITTED);
    }
    assertThat(checkpointsOf(USER)).containsExactly(1L, 1L);
  }

  @Test
  void historyWalkStopsAtCleanedUpVersions() throws Exception {
    commitFresh(committable(USER, 1));
    commitFresh(committable("user-b", 10), committable("user-b", 11));
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open().allocator(allocator).uri(table).build()) {
      dataset.cleanupWithPolicy(
          CleanupPolicy.builder().withBeforeVersion(dataset.version()).build());
    }

    try (LanceCommitter restored = committer(TestCommitterContext.restoredFrom(2), config())) {
      assertThat(commit(restored, committable(USER, 2)))
          .extracting(RecordingCommitRequest::outcome)
          .containsExactly(Outcome.COMMITTED);
    }
    assertThat(LanceTestTables.latestVersion(table)).isEqualTo(5);
  }

  @Test
  void anAttemptThatFailedAfterLandingIsNotCommittedTwice() throws Exception {
    AtomicInteger failures = new AtomicInteger(1);
    AppendCommit landsThenFails =
        new AppendCommit(config().dataset(), 0) {
          @Override
          Dataset commit(Dataset current, LanceCommittable committable) {
            Dataset committed = super.commit(current, committable);
            if (failures.getAndDecrement() > 0) {
              committed.close();
              throw new IllegalStateException("injected: the response of a landed commit was lost");
            }
            return committed;
          }
        };
    try (LanceCommitter committer =
        new LanceCommitter(config(), TestCommitterContext.fresh(), landsThenFails)) {
      assertThat(commit(committer, committable(USER, 1), committable(USER, 2)))
          .extracting(RecordingCommitRequest::outcome)
          .containsExactly(Outcome.COMMITTED, Outcome.COMMITTED);
    }
    assertThat(checkpointsOf(USER)).containsExactly(1L, 2L);
  }

  @Test
  void anAttemptThatFailedBeforeLandingIsRetried() throws Exception {
    AtomicInteger failures = new AtomicInteger(2);
    AppendCommit failsTwice =
        new AppendCommit(config().dataset(), 0) {
          @Override
          Dataset commit(Dataset current, LanceCommittable committable) {
            if (failures.getAndDecrement() > 0) {
              throw new IllegalStateException("injected: object store unavailable");
            }
            return super.commit(current, committable);
          }
        };
    try (LanceCommitter committer =
        new LanceCommitter(config(), TestCommitterContext.fresh(), failsTwice)) {
      commit(committer, committable(USER, 1));
    }
    assertThat(checkpointsOf(USER)).containsExactly(1L);
  }

  @Test
  void whenEveryAttemptFailsTheCommitFailsWithTheCause() {
    Configuration twoAttempts = new Configuration();
    twoAttempts.set(LanceSinkOptions.SINK_COMMIT_MAX_ATTEMPTS, 2);
    AppendCommit alwaysFails =
        new AppendCommit(config().dataset(), 0) {
          @Override
          Dataset commit(Dataset current, LanceCommittable committable) {
            throw new IllegalStateException("injected: object store unavailable");
          }
        };
    LanceCommitter committer =
        new LanceCommitter(config(twoAttempts), TestCommitterContext.fresh(), alwaysFails);
    assertThatThrownBy(() -> commit(committer, committable(USER, 1)))
        .hasMessageContaining("checkpointId=1")
        .hasRootCauseMessage("injected: object store unavailable");
    committer.close();
    assertThat(LanceTestTables.latestVersion(table)).isEqualTo(1);
  }

  private void commitFresh(LanceCommittable... committables) throws Exception {
    try (LanceCommitter committer = committer(TestCommitterContext.fresh(), config())) {
      commit(committer, committables);
    }
  }

  private LanceCommitter committer(TestCommitterContext context, LanceSinkConfig config) {
    return new LanceCommitter(config, context);
  }

  private static List<RecordingCommitRequest<LanceCommittable>> commit(
      LanceCommitter committer, LanceCommittable... committables) throws Exception {
    List<RecordingCommitRequest<LanceCommittable>> requests = new ArrayList<>();
    for (LanceCommittable committable : committables) {
      requests.add(new RecordingCommitRequest<>(committable));
    }
    Collection<CommitRequest<LanceCommittable>> asRequests = new ArrayList<>(requests);
    committer.commit(asRequests);
    return requests;
  }

  private LanceCommittable committable(String user, long checkpointId) {
    return new LanceCommittable(user, checkpointId, "job", TestFragments.write(table, nextId++));
  }

  private List<Long> checkpointsOf(String user) {
    return LanceTestTables.sinkCommits(table).stream()
        .filter(c -> user.equals(c.commitUser()))
        .map(Commit::checkpointId)
        .toList();
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
