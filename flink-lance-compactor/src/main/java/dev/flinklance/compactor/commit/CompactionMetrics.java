package dev.flinklance.compactor.commit;

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

  CompactionMetrics(MetricGroup group) {
    this.committed = group.counter("lanceCompactionsCommitted");
    this.failed = group.counter("lanceCompactionsFailed");
    this.conflicts = group.counter("lanceCompactionConflicts");
    this.rowsRewritten = group.counter("lanceRowsRewritten");
    this.bytesRewritten = group.counter("lanceBytesRewritten");
    this.fragmentsRewritten = group.counter("lanceFragmentsRewritten");
    this.lineageBytesSpilled = group.counter("lanceLineageBytesSpilled");
    this.sideFilesDeleted = group.counter("lanceSideFilesDeleted");
    group.gauge("lanceFragmentsBeforeCompaction", () -> fragmentsBefore);
    group.gauge("lanceFragmentsAfterCompaction", () -> fragmentsAfter);
    group.gauge("lanceLastCompactionDurationMs", () -> lastDurationMs);
    group.gauge("lanceLastCompactionVersion", () -> lastVersion);
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
