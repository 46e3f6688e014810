package dev.flinklance.compactor.rewrite;

import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;

/** A rewrite worker's metrics; what got committed is counted by the compaction committer. */
final class RewriteMetrics {
  private final Counter tasks;
  private final Counter failures;
  private volatile long lastDurationMs = -1;

  RewriteMetrics(MetricGroup group) {
    this.tasks = group.counter("lanceRewriteTasks");
    this.failures = group.counter("lanceRewriteFailures");
    group.gauge("lanceLastRewriteDurationMs", () -> lastDurationMs);
  }

  void rewritten(long durationMs) {
    tasks.inc();
    lastDurationMs = durationMs;
  }

  void failed() {
    tasks.inc();
    failures.inc();
  }
}
