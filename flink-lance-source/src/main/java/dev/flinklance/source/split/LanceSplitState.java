package dev.flinklance.source.split;

import org.apache.flink.annotation.Internal;

/** A split being read: counts the rows emitted, in the reader's main thread. */
@Internal
public final class LanceSplitState {
  private final LanceSplit split;
  private long rowsEmitted;

  public LanceSplitState(LanceSplit split) {
    this.split = split;
    this.rowsEmitted = split.rowsEmitted();
  }

  public void rowEmitted() {
    rowsEmitted++;
  }

  public LanceSplit toSplit() {
    return split.withRowsEmitted(rowsEmitted);
  }
}
