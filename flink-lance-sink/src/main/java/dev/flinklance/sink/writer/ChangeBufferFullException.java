package dev.flinklance.sink.writer;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.runtime.throwable.ThrowableAnnotation;
import org.apache.flink.runtime.throwable.ThrowableType;

/**
 * A writer of a sink with a primary key holds more changes between two checkpoints than {@code
 * sink.upsert.max-buffer-size} allows. A restart would replay the same changes into the same
 * buffer, so the job fails at once instead.
 */
@PublicEvolving
@ThrowableAnnotation(ThrowableType.NonRecoverableError)
public class ChangeBufferFullException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ChangeBufferFullException(String message) {
    super(message);
  }
}
