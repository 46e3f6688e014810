package dev.flinklance.sink.committer;
import dev.flinklance.commit.CommitHistory;

import dev.flinklance.sink.LanceSinkConfig;
import dev.flinklance.dataset.LanceDataset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.lance.Dataset;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits each checkpoint's committable as one Lance Append, stamped with its commit user and
 * checkpoint id, in checkpoint order.
 *
 * <p>Replay detection: a committable restored from Flink state (checkpoint id at or below the
 * restored checkpoint) may already be in the table, because the job can fail after the Lance commit
 * and before Flink learns of it. For those, the committer reads the table's history back to the
 * newest commit of the same commit user; every checkpoint at or below that one is acknowledged
 * without a commit (commits of one user land in checkpoint order). The answer is cached, so only
 * the first commit after a restore reads history. Committables created since the restore are new by
 * construction and are never skipped, which keeps a restore from an older savepoint from losing
 * data. After a failed attempt, only the versions written since the attempt began are searched for
 * its exact stamp before trying again.
 */
public final class LanceCommitter implements Committer<LanceCommittable> {
  private static final Logger LOG = LoggerFactory.getLogger(LanceCommitter.class);
  private static final long INITIAL_BACKOFF_MS = 500;
  private static final long MAX_BACKOFF_MS = 8_000;

  private final LanceSinkConfig config;
  private final AppendCommit append;
  private final LanceDataset table;
  private final OptionalLong restoredCheckpointId;
  private final CommitterMetrics metrics;
  private final Map<String, Long> lastCommittedCheckpoint = new HashMap<>();
  private BufferAllocator allocator;
  private Dataset dataset;

  public LanceCommitter(LanceSinkConfig config, CommitterInitContext context) {
    this(config, context, new AppendCommit(config.dataset(), config.commitMaxConflictRetries()));
  }

  LanceCommitter(LanceSinkConfig config, CommitterInitContext context, AppendCommit append) {
    this.config = config;
    this.append = append;
    this.table = config.dataset();
    this.restoredCheckpointId = context.getRestoredCheckpointId();
    this.metrics = new CommitterMetrics(context.metricGroup());
  }

  @Override
  public void commit(Collection<CommitRequest<LanceCommittable>> requests)
      throws InterruptedException {
    List<CommitRequest<LanceCommittable>> ordered = new ArrayList<>(requests);
    ordered.sort(Comparator.comparingLong(r -> r.getCommittable().checkpointId()));
    for (CommitRequest<LanceCommittable> request : ordered) {
      LanceCommittable committable = request.getCommittable();
      if (isReplayOfCommitted(committable)) {
        LOG.info("Skipping {}: already committed to {} before the restore", committable, table);
        metrics.deduped();
        request.signalAlreadyCommitted();
        continue;
      }
      try {
        commitWithRetries(committable);
      } catch (RuntimeException e) {
        request.signalFailedWithUnknownReason(e);
      }
    }
  }

  private boolean isReplayOfCommitted(LanceCommittable committable) {
    boolean restored =
        restoredCheckpointId.isPresent()
            && committable.checkpointId() <= restoredCheckpointId.getAsLong();
    if (!restored) {
      return false;
    }
    Long last =
        lastCommittedCheckpoint.computeIfAbsent(
            committable.commitUser(),
            user -> {
              OptionalLong found =
                  CommitHistory.lastCheckpointOf(dataset(), user, config.dedupeMaxVersions());
              LOG.info(
                  "Newest commit of commit user '{}' in {}: checkpoint {}",
                  user,
                  table,
                  found.isPresent() ? found.getAsLong() : "none");
              return found.isPresent() ? found.getAsLong() : Long.MIN_VALUE;
            });
    return committable.checkpointId() <= last;
  }

  private void commitWithRetries(LanceCommittable committable) throws InterruptedException {
    long backoff = INITIAL_BACKOFF_MS;
    for (int attempt = 1; ; attempt++) {
      long versionBefore = dataset().version();
      try {
        commitOnce(committable);
        return;
      } catch (RuntimeException e) {
        if (attempt >= config.commitMaxAttempts()) {
          throw e;
        }
        LOG.warn(
            "Commit attempt {} of {} for {} to {} failed; retrying in {} ms",
            attempt,
            config.commitMaxAttempts(),
            committable,
            table,
            backoff,
            e);
        Thread.sleep(backoff);
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
        if (landedAfter(committable, versionBefore)) {
          LOG.info("The failed attempt for {} did land; not committing again", committable);
          recordCommitted(committable);
          return;
        }
      }
    }
  }

  private boolean landedAfter(LanceCommittable committable, long versionBefore) {
    reopen();
    return CommitHistory.containsCommitAfter(
        dataset(), versionBefore, committable.commitUser(), committable.checkpointId());
  }

  private void commitOnce(LanceCommittable committable) {
    long start = System.nanoTime();
    Dataset current = dataset();
    Dataset committed = append.commit(current, committable);
    current.close();
    dataset = committed;
    long durationMs = (System.nanoTime() - start) / 1_000_000;
    recordCommitted(committable);
    metrics.committed(committable, committed.version(), durationMs);
    LOG.info(
        "Committed {} to {} as version {} in {} ms",
        committable,
        table,
        committed.version(),
        durationMs);
  }

  private void recordCommitted(LanceCommittable committable) {
    lastCommittedCheckpoint.merge(committable.commitUser(), committable.checkpointId(), Math::max);
  }

  /** The table at the newest version this committer knows; opened on first use. */
  private Dataset dataset() {
    if (dataset == null) {
      if (allocator == null) {
        allocator = new RootAllocator();
      }
      dataset = table.open(allocator);
    }
    return dataset;
  }

  private void reopen() {
    if (dataset != null) {
      dataset.close();
      dataset = null;
    }
  }

  @Override
  public void close() {
    reopen();
    if (allocator != null) {
      allocator.close();
    }
  }
}
