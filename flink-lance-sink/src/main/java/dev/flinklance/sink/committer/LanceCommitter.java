package dev.flinklance.sink.committer;

import dev.flinklance.access.ConditionalPutProbe;
import dev.flinklance.access.TableRef;
import dev.flinklance.commit.CommitStamp;
import dev.flinklance.commit.RunProgress;
import dev.flinklance.errors.LanceErrors;
import dev.flinklance.errors.LanceErrors.Kind;
import dev.flinklance.errors.LanceRetries;
import dev.flinklance.index.KeyIndex;
import dev.flinklance.sink.LanceSinkConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.util.concurrent.RetryStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits each checkpoint's committable as one stamped Lance transaction, in checkpoint order.
 *
 * <p>Replay detection: a committable may already be in the table when it comes back after a
 * failover or a restore (or a retried BATCH commit): the job can fail after Lance committed and
 * before Flink learned of it. Committables are identified by their sink run and sequence number
 * ({@link CommitStamp}); a run's commits land in sequence order, so the newest commit of a run in
 * the table tells which of its committables landed. The first committable of each run this
 * committer sees triggers one history walk, newest version first, that stops at the run's first
 * commit found or at the version the run started from; afterwards the committer tracks the run
 * itself, so the steady state reads no history.
 *
 * <p>Retries ({@link LanceRetries}, docs/architecture.md "Commit retries"): a transient failure is
 * retried here with backoff, {@code sink.commit.max-attempts} attempts; a conflict left after
 * Lance's own rebases goes back to Flink ({@code retryLater}, which Flink 2.2 retries at once); a
 * permanent failure is not retried. After a failed attempt, the versions written since the attempt
 * began are searched the same way before trying again. Before each commit the committer checks that
 * the table is still the one it knows ({@link TableIdentity}): committing on a cached view of a
 * table that was deleted and recreated would leave it unreadable.
 */
@Internal
public final class LanceCommitter implements Committer<LanceCommittable> {
  private static final Logger LOG = LoggerFactory.getLogger(LanceCommitter.class);
  private static final Duration FIRST_STORE_ERROR_BACKOFF = Duration.ofMillis(500);
  private static final Duration MAX_STORE_ERROR_BACKOFF = Duration.ofSeconds(8);

  private final LanceSinkConfig config;
  private final StampedCommit stampedCommit;
  private final TableRef table;
  private final CommitterMetrics metrics;
  private final WrittenColumns writtenColumns;

  /** Per sink run: the highest sequence number known to be in the table (0: none). */
  private final Map<String, Long> landedSeqOfRun = new HashMap<>();

  private TableIdentity identity;
  private boolean keyIndexChecked;
  private boolean orphanedKeyFilesRemoved;

  public LanceCommitter(LanceSinkConfig config, CommitterInitContext context) {
    this(
        config,
        context,
        new StampedCommit(
            config.dataset(), config.commitMaxConflictRetries(), config.primaryKey().orElse(null)));
  }

  LanceCommitter(
      LanceSinkConfig config, CommitterInitContext context, StampedCommit stampedCommit) {
    this.config = config;
    this.stampedCommit = stampedCommit;
    this.table = config.dataset();
    this.metrics = new CommitterMetrics(context.metricGroup(), table);
    this.writtenColumns = new WrittenColumns(table.uri());
  }

  @Override
  public void commit(Collection<CommitRequest<LanceCommittable>> requests)
      throws InterruptedException {
    if (!orphanedKeyFilesRemoved) {
      stampedCommit.removeOrphanedKeyFiles();
      orphanedKeyFilesRemoved = true;
    }
    List<CommitRequest<LanceCommittable>> ordered = new ArrayList<>(requests);
    ordered.sort(
        Comparator.comparingLong(
                (CommitRequest<LanceCommittable> r) -> r.getCommittable().checkpointId())
            .thenComparingLong(r -> r.getCommittable().stamp().runSeq()));
    Iterator<CommitRequest<LanceCommittable>> pending = ordered.iterator();
    while (pending.hasNext()) {
      CommitRequest<LanceCommittable> request = pending.next();
      LanceCommittable committable = request.getCommittable();
      if (isInTable(committable)) {
        LOG.info("Skipping {}: it is already in {}", committable, table);
        metrics.deduped();
        stampedCommit.landed(committable);
        request.signalAlreadyCommitted();
        continue;
      }
      boolean landed;
      try {
        landed = commitWithRetries(committable);
      } catch (RuntimeException e) {
        // Later checkpoints must not land before this one: leave them to the replay.
        pending.forEachRemaining(CommitRequest::retryLater);
        request.signalFailedWithUnknownReason(e);
        return;
      }
      if (!landed) {
        // Flink calls again at once, this request first; later ones wait for it.
        request.retryLater();
        pending.forEachRemaining(CommitRequest::retryLater);
        return;
      }
    }
  }

  private boolean isInTable(LanceCommittable committable) {
    CommitStamp stamp = committable.stamp();
    long landed =
        landedSeqOfRun.computeIfAbsent(
            stamp.run(), run -> landedSeq(committable, committable.runStart().version()));
    return stamp.runSeq() <= landed;
  }

  /** The highest sequence number of the committable's run found after {@code afterVersion}. */
  private long landedSeq(LanceCommittable committable, long afterVersion) {
    RunProgress progress =
        RunProgress.of(
            identity().dataset(),
            committable.stamp().run(),
            afterVersion,
            config.dedupeMaxVersions());
    if (progress instanceof RunProgress.Landed landed) {
      LOG.info(
          "Newest commit of sink run {} in {}: #{} at version {}",
          committable.stamp().run(),
          table,
          landed.seq(),
          landed.version());
      return landed.seq();
    }
    if (progress instanceof RunProgress.Unknown unknown) {
      LOG.warn(
          "Cannot tell whether {} is already in {}: {}. Committing it; if it did land before,"
              + " its rows are now in the table twice.",
          committable,
          table,
          unknown.why());
    }
    return 0;
  }

  /**
   * Commits, retrying a transient failure (an object-store error) on this thread with backoff, up
   * to {@code sink.commit.max-attempts} attempts: Flink's own retries ({@code retryLater}) come at
   * once and could not ride out an outage. Before each retry it looks whether the failed attempt
   * landed after all. A permanent failure is never retried.
   *
   * @return false if the commit lost a race with concurrent commits (Lance's own rebases, {@code
   *     sink.commit.max-conflict-retries}, used up) and did not land: to be retried at once
   */
  private boolean commitWithRetries(LanceCommittable committable) throws InterruptedException {
    long[] attemptFrom = {-1}; // the version the last attempt started on
    try {
      LanceRetries.call(
          storeErrorRetries(),
          EnumSet.of(Kind.TRANSIENT),
          () -> {
            if (attemptFrom[0] >= 0 && landedSince(committable, attemptFrom[0])) {
              return null;
            }
            attemptFrom[0] = identity().dataset().version();
            commitOnce(committable);
            return null;
          },
          (failure, retry, delay) ->
              LOG.warn(
                  "Commit attempt {} of {} for {} to {} failed; retrying in {} ms",
                  retry,
                  config.commitMaxAttempts(),
                  committable,
                  table,
                  delay.toMillis(),
                  failure));
      return true;
    } catch (RuntimeException e) {
      if (LanceErrors.kindOf(e) != Kind.CONFLICT) {
        throw e;
      }
      if (attemptFrom[0] >= 0 && landedSince(committable, attemptFrom[0])) {
        return true;
      }
      LOG.info(
          "Commit of {} to {} lost the race with concurrent commits; Flink retries it at once",
          committable,
          table,
          e);
      return false;
    }
  }

  private RetryStrategy storeErrorRetries() {
    return LanceRetries.backoff(
        config.commitMaxAttempts() - 1, FIRST_STORE_ERROR_BACKOFF, MAX_STORE_ERROR_BACKOFF);
  }

  /** After a failed attempt: looks at the newest versions for the attempt's run and number. */
  private boolean landedSince(LanceCommittable committable, long version) {
    identity().refresh();
    if (landedSeq(committable, version) < committable.stamp().runSeq()) {
      return false;
    }
    LOG.info("The failed attempt for {} did land; not committing it again", committable);
    landedSeqOfRun.put(committable.stamp().run(), committable.stamp().runSeq());
    stampedCommit.landed(committable);
    return true;
  }

  private void commitOnce(LanceCommittable committable) {
    long start = System.nanoTime();
    TableIdentity current = identity();
    StampedCommit.Committed committed;
    try {
      current.verify(committable.runStart());
      current.refresh();
      writtenColumns.check(current.dataset(), committable);
      if (committable.upserts()) {
        ensureKeyIndex(current);
      }
      committed = stampedCommit.commit(current.dataset(), committable);
    } catch (RuntimeException e) {
      throw current.explain(e);
    }
    long version = committed.dataset().version();
    current.advanceTo(committed.dataset());
    long durationMs = (System.nanoTime() - start) / 1_000_000;
    landedSeqOfRun.put(committable.stamp().run(), committable.stamp().runSeq());
    stampedCommit.landed(committable);
    metrics.committed(committable, version, durationMs);
    committed.update().ifPresent(metrics::upserted);
    LOG.info(
        "Committed {} to {} as version {} in {} ms{}",
        committable,
        table,
        version,
        durationMs,
        committed
            .update()
            .map(
                u ->
                    String.format(
                        " (%d rows replaced or deleted, found in %d ms%s)",
                        u.removedRows(),
                        u.lookupMs(),
                        u.lookup().indexedKeys() ? " through the key index" : " by a scan"))
            .orElse(""));
    if (committed.update().isPresent()
        && KeyIndex.upkeep(current.dataset(), config.primaryKey().orElseThrow())) {
      current.refresh();
    }
  }

  /**
   * Builds the key's BTree indexes (once per committer, before its first upsert) unless {@code
   * sink.upsert.key-index} is off. A failure here is a failed commit attempt.
   */
  private void ensureKeyIndex(TableIdentity current) {
    if (keyIndexChecked || !config.upsertKeyIndex()) {
      return;
    }
    if (!KeyIndex.ensure(current.dataset(), config.primaryKey().orElseThrow()).isEmpty()) {
      current.refresh();
    }
    keyIndexChecked = true;
  }

  /** The table as this committer knows it; opened on first use. */
  private TableIdentity identity() {
    if (identity == null) {
      ConditionalPutProbe.verify(table);
      identity = new TableIdentity(table);
    }
    return identity;
  }

  @Override
  public void close() {
    stampedCommit.close();
    if (identity != null) {
      identity.close();
      identity = null;
    }
  }
}
