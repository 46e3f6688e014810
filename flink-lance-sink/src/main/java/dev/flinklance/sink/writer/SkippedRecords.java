package dev.flinklance.sink.writer;

import org.apache.flink.annotation.Internal;
import org.apache.flink.metrics.Counter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The records a writer leaves out under {@code sink.on-invalid-record = skip}: counted in a metric
 * and logged, the first few in full, then one summary line at most every ten seconds, so a stream
 * full of bad records cannot flood the log.
 */
@Internal
public final class SkippedRecords {
  private static final Logger LOG = LoggerFactory.getLogger(SkippedRecords.class);
  private static final int LOGGED_IN_FULL = 10;
  private static final long SUMMARY_INTERVAL_MS = 10_000;

  private final Counter counter;
  private long skipped;
  private long sinceSummary;
  private long lastSummaryMs;

  public SkippedRecords(Counter counter) {
    this.counter = counter;
  }

  /**
   * @param why the record's error: table, column, record number, abbreviated record
   */
  public void skip(String why) {
    counter.inc();
    skipped++;
    if (skipped <= LOGGED_IN_FULL) {
      LOG.warn("Skipped invalid record ({} so far): {}", skipped, why);
      lastSummaryMs = System.currentTimeMillis();
      return;
    }
    sinceSummary++;
    long now = System.currentTimeMillis();
    if (now - lastSummaryMs >= SUMMARY_INTERVAL_MS) {
      LOG.warn(
          "Skipped {} more invalid records ({} in all); the latest: {}",
          sinceSummary,
          skipped,
          why);
      sinceSummary = 0;
      lastSummaryMs = now;
    }
  }
}
