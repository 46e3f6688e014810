package dev.flinklance.source.enumerator;

import org.apache.flink.metrics.groups.SplitEnumeratorMetricGroup;

/**
 * The enumerator's metrics of a streaming read. Gauges are read on the metrics thread, so they show
 * values the coordinator thread publishes after each change.
 */
final class SourceMetrics {
  private volatile long latestVersion = -1;
  private volatile long versionRead = -1;
  private volatile long unassignedSplits;

  SourceMetrics(SplitEnumeratorMetricGroup group) {
    group.setUnassignedSplitsGauge(() -> unassignedSplits);
    group.gauge("lanceCurrentVersion", () -> versionRead);
    group.gauge("lanceLatestVersion", () -> latestVersion);
    group.gauge("lanceVersionsBehindLatest", () -> Math.max(0, latestVersion - versionRead));
  }

  void latestVersion(long version) {
    latestVersion = version;
  }

  void update(long versionRead, long unassignedSplits) {
    this.versionRead = versionRead;
    this.unassignedSplits = unassignedSplits;
  }
}
