package dev.flinklance.compactor;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.runtime.throwable.ThrowableAnnotation;
import org.apache.flink.runtime.throwable.ThrowableType;

/**
 * A compaction pass run on its own ({@code --once}, the SQL procedure) that failed. The pass is
 * over: its job ends at once rather than being restarted.
 */
@PublicEvolving
@ThrowableAnnotation(ThrowableType.NonRecoverableError)
public class CompactionFailedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public CompactionFailedException(String message) {
    super(message);
  }
}
