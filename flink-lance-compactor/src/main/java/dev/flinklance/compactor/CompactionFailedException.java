package dev.flinklance.compactor;

import org.apache.flink.annotation.PublicEvolving;

/** A compaction pass run on its own ({@code --once}, the SQL procedure) that failed. */
@PublicEvolving
public class CompactionFailedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public CompactionFailedException(String message) {
    super(message);
  }
}
