package dev.flinklance.sink.committer;

import dev.flinklance.access.TableRef;
import dev.flinklance.metrics.LanceMetrics;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;

/** The committer's own metrics, next to Flink's standard committable counters. */
final class CommitterMetrics {
  private final Counter committedFragments;
  private final Counter committedRows;
  private final Counter dedupedCommits;
  private final Counter removedRows;
  private volatile long lastKeyLookupMs = -1;
  private volatile long lastCommitDurationMs = -1;
  private volatile long lastCommittedVersion = -1;
  private volatile long lastCommittedCheckpoint = -1;

  CommitterMetrics(MetricGroup operator, TableRef table) {
    MetricGroup group = LanceMetrics.tableGroup(operator, table);
    this.committedFragments = group.counter("committedFragments");
    this.committedRows = group.counter("committedRows");
    this.dedupedCommits = group.counter("dedupedCommits");
    this.removedRows = group.counter("removedRows");
    group.gauge("lastKeyLookupMs", () -> lastKeyLookupMs);
    group.gauge("lastCommitDurationMs", () -> lastCommitDurationMs);
    group.gauge("lastCommittedVersion", () -> lastCommittedVersion);
    group.gauge("lastCommittedCheckpoint", () -> lastCommittedCheckpoint);
  }

  void committed(LanceCommittable committable, long version, long durationMs) {
    committedFragments.inc(committable.fragments().size());
    committedRows.inc(committable.rowCount());
    lastCommitDurationMs = durationMs;
    lastCommittedVersion = version;
    lastCommittedCheckpoint = committable.checkpointId();
  }

  /** A sink with a primary key: the rows a commit replaced or deleted, and their lookup. */
  void upserted(KeyedUpdate update) {
    removedRows.inc(update.removedRows());
    lastKeyLookupMs = update.lookupMs();
  }

  void deduped() {
    dedupedCommits.inc();
  }
}
