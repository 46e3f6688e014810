package dev.flinklance.source.split;

import org.apache.flink.annotation.Internal;

/**
 * Which rows of a fragment a split reads, and at which version. Within one table version the rows a
 * version removed are read before the rows it added ({@link #phase()}), so that a row's old image
 * always reaches downstream before its new one.
 */
@Internal
// The ordinal is the serialized form (LanceSplitSerializer): add kinds at the end.
public enum SplitKind {
  /** Every live row of the fragment at the split's version, as +I: a bounded read, a start. */
  SNAPSHOT(1),
  /** Every live row of a fragment the version added, as +I (or +U). */
  ADDED(1),
  /** Every row live at the version before of a fragment the version removed, as -D (or -U). */
  REMOVED(0),
  /**
   * The rows of a fragment live at the version before and deleted by the version, as -D (or -U).
   */
  DELETED_ROWS(0);

  private final int phase;

  SplitKind(int phase) {
    this.phase = phase;
  }

  /** 0 for the rows a version removes, 1 for the rows it adds. */
  public int phase() {
    return phase;
  }

  /** Whether the split reads at the version before its own. */
  public boolean readsPreviousVersion() {
    return phase == 0;
  }
}
