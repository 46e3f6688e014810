package dev.flinklance.source.split;

import java.io.Serializable;
import java.util.Comparator;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceSplit;

/**
 * Some rows of one fragment for one table version ({@link SplitKind}), and how many of them a
 * reader has emitted already: a reader restored from a checkpoint resumes right after them, so a
 * failure neither re-reads nor skips a row.
 *
 * @param commitMillis when {@code version} was committed (the read's freshness is measured from it)
 */
@Internal
public record LanceSplit(
    SplitKind kind, int fragmentId, long version, long commitMillis, long rowsEmitted)
    implements SourceSplit, Serializable {

  /** Version order; within a version removed rows before added ones; then by fragment. */
  public static final Comparator<LanceSplit> READ_ORDER =
      Comparator.comparingLong(LanceSplit::version)
          .thenComparingInt(split -> split.kind().phase())
          .thenComparingInt(LanceSplit::fragmentId)
          .thenComparing(LanceSplit::kind);

  public static LanceSplit of(SplitKind kind, int fragmentId, long version, long commitMillis) {
    return new LanceSplit(kind, fragmentId, version, commitMillis, 0);
  }

  /** The version whose rows the split reads: its own, or the one before for removed rows. */
  public long readVersion() {
    return kind.readsPreviousVersion() ? version - 1 : version;
  }

  /**
   * The oldest version reading the split opens, which a streaming read keeps registered ({@code
   * scan.consumer-id}): its {@link #readVersion}, or, in a changelog read, the version before, with
   * which the reader pairs the rows a version removed and added into updates.
   */
  public long oldestVersionOpened(boolean changelog) {
    return changelog && kind != SplitKind.SNAPSHOT ? version - 1 : readVersion();
  }

  /** Which rows the split reads, for messages: "the rows version 5 deleted". */
  public String describeRows() {
    return switch (kind) {
      case SNAPSHOT -> "the rows of version " + version;
      case ADDED -> "the rows version " + version + " added";
      case REMOVED, DELETED_ROWS -> "the rows version " + version + " deleted";
    };
  }

  @Override
  public String splitId() {
    return String.format("v%d-%s-f%d", version, kind, fragmentId);
  }

  public LanceSplit withRowsEmitted(long rows) {
    return new LanceSplit(kind, fragmentId, version, commitMillis, rows);
  }

  /** Whether this split comes before {@code other} in {@link #READ_ORDER}'s version and phase. */
  public boolean readsBefore(LanceSplit other) {
    return version < other.version
        || (version == other.version && kind.phase() < other.kind.phase());
  }
}
