package dev.flinklance.table.source.split;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceSplit;

/**
 * One fragment of one table version, and how many of its (filtered) rows a reader has emitted
 * already: a reader restored from a checkpoint resumes right after them, so a failure neither
 * re-reads nor skips a row.
 */
@Internal
public record LanceSplit(int fragmentId, long version, long rowsEmitted) implements SourceSplit {

  public static LanceSplit of(int fragmentId, long version) {
    return new LanceSplit(fragmentId, version, 0);
  }

  @Override
  public String splitId() {
    return "fragment-" + fragmentId;
  }

  public LanceSplit withRowsEmitted(long rows) {
    return new LanceSplit(fragmentId, version, rows);
  }
}
