package dev.flinklance.compactor.operator;

import dev.flinklance.access.TableRef;
import dev.flinklance.metrics.LanceMetrics;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;

/** A rewrite worker's metrics; what got committed is counted by the compaction committer. */
final class RewriteMetrics {
  private final Counter tasks;
  private final Counter failures;
  private volatile long lastDurationMs = -1;

  RewriteMetrics(MetricGroup operator, TableRef table) {
    MetricGroup group = LanceMetrics.tableGroup(operator, table);
    this.tasks = group.counter("rewriteTasks");
    this.failures = group.counter("rewriteFailures");
    group.gauge("lastRewriteDurationMs", () -> lastDurationMs);
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
