package dev.flinklance.source.enumerator;

import dev.flinklance.access.TableRef;
import dev.flinklance.metrics.LanceMetrics;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.SplitEnumeratorMetricGroup;

/**
 * The enumerator's metrics of a streaming read. Gauges are read on the metrics thread, so they show
 * values the coordinator thread publishes after each change.
 */
final class SourceMetrics {
  private volatile long latestVersion = -1;
  private volatile long versionRead = -1;
  private volatile long unassignedSplits;
  private volatile long consumerVersion = -1;

  /**
   * @param consumer whether the read registers as a consumer ({@code scan.consumer-id}): only then
   *     does it have a registered version to show
   */
  SourceMetrics(SplitEnumeratorMetricGroup enumerator, TableRef table, boolean consumer) {
    enumerator.setUnassignedSplitsGauge(() -> unassignedSplits);
    MetricGroup group = LanceMetrics.tableGroup(enumerator, table);
    group.gauge("currentVersion", () -> versionRead);
    group.gauge("latestVersion", () -> latestVersion);
    group.gauge("versionsBehindLatest", () -> Math.max(0, latestVersion - versionRead));
    if (consumer) {
      group.gauge("consumerVersion", () -> consumerVersion);
    }
  }

  /** The version last registered for {@code scan.consumer-id}. */
  void consumerVersion(long version) {
    consumerVersion = version;
  }

  void latestVersion(long version) {
    latestVersion = version;
  }

  void update(long versionRead, long unassignedSplits) {
    this.versionRead = versionRead;
    this.unassignedSplits = unassignedSplits;
  }
}
