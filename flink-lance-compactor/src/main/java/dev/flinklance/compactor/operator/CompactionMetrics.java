package dev.flinklance.compactor.operator;

import dev.flinklance.access.TableRef;
import dev.flinklance.compactor.commit.CompactionSummary;
import dev.flinklance.metrics.LanceMetrics;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;

/** The compaction committer's metrics (docs/compaction.md lists them). */
final class CompactionMetrics {
  private final Counter committed;
  private final Counter failed;
  private final Counter conflicts;
  private final Counter rowsRewritten;
  private final Counter bytesRewritten;
  private final Counter fragmentsRewritten;
  private final Counter lineageBytesSpilled;
  private final Counter sideFilesDeleted;
  private volatile long fragmentsBefore = -1;
  private volatile long fragmentsAfter = -1;
  private volatile long lastDurationMs = -1;
  private volatile long lastVersion = -1;

  CompactionMetrics(MetricGroup operator, TableRef table) {
    this(LanceMetrics.tableGroup(operator, table));
  }

  /** Metrics of the compactions of whatever tables {@code group}'s operator compacts. */
  CompactionMetrics(MetricGroup group) {
    this.committed = group.counter("compactionsCommitted");
    this.failed = group.counter("compactionsFailed");
    this.conflicts = group.counter("compactionConflicts");
    this.rowsRewritten = group.counter("rowsRewritten");
    this.bytesRewritten = group.counter("bytesRewritten");
    this.fragmentsRewritten = group.counter("fragmentsRewritten");
    this.lineageBytesSpilled = group.counter("lineageBytesSpilled");
    this.sideFilesDeleted = group.counter("sideFilesDeleted");
    group.gauge("fragmentsBeforeCompaction", () -> fragmentsBefore);
    group.gauge("fragmentsAfterCompaction", () -> fragmentsAfter);
    group.gauge("lastCompactionDurationMs", () -> lastDurationMs);
    group.gauge("lastCompactionVersion", () -> lastVersion);
  }

  void finished(CompactionSummary summary) {
    conflicts.inc(summary.groupsPreempted());
    if (summary.outcome() != CompactionSummary.Outcome.COMMITTED) {
      return;
    }
    committed.inc();
    rowsRewritten.inc(summary.rowsRewritten());
    bytesRewritten.inc(summary.bytesRewritten());
    fragmentsRewritten.inc(summary.fragmentsRewritten());
    lineageBytesSpilled.inc(summary.lineageBytesSpilled());
    fragmentsBefore = summary.fragmentsBefore();
    fragmentsAfter = summary.fragmentsAfter();
    lastDurationMs = summary.durationMs();
    lastVersion = summary.version();
  }

  void failed() {
    failed.inc();
  }

  void sideFilesDeleted(int count) {
    sideFilesDeleted.inc(count);
  }
}
