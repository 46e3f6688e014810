package dev.flinklance.sink.writer;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.runtime.throwable.ThrowableAnnotation;
import org.apache.flink.runtime.throwable.ThrowableType;

/**
 * A record the sink cannot write: a null in a NOT NULL column, a vector of the wrong dimension, a
 * value out of its type's range, a retraction. The same record comes back after every restart, so
 * the job fails at once; option {@code sink.on-invalid-record = skip} leaves such records out
 * instead.
 */
@PublicEvolving
@ThrowableAnnotation(ThrowableType.NonRecoverableError)
public class InvalidRecordException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public InvalidRecordException(String message, Throwable cause) {
    super(message, cause);
  }
}
