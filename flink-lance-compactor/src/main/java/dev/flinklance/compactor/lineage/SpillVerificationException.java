package dev.flinklance.compactor.lineage;

import java.io.IOException;
import org.apache.flink.annotation.Internal;

/** Spilled lineage read back differently from what was written; the compaction must not commit. */
@Internal
public final class SpillVerificationException extends IOException {
  private static final long serialVersionUID = 1L;

  public SpillVerificationException(String message) {
    super(message);
  }
}
