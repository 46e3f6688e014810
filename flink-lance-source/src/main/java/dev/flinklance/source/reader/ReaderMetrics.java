package dev.flinklance.source.reader;

import dev.flinklance.source.split.LanceSplit;
import org.apache.flink.metrics.groups.SourceReaderMetricGroup;

/**
 * A reader's {@code currentFetchEventTimeLag} (FLIP-33): the time from the commit of the version
 * whose rows were fetched last to that fetch, in milliseconds; the read's freshness.
 */
final class ReaderMetrics {
  private volatile long fetchLagMillis = -1;

  ReaderMetrics(SourceReaderMetricGroup group) {
    group.gauge("currentFetchEventTimeLag", () -> fetchLagMillis);
  }

  /** On the fetcher thread, for each batch it takes. */
  void fetched(LanceSplit split) {
    fetchLagMillis = Math.max(0, System.currentTimeMillis() - split.commitMillis());
  }
}
