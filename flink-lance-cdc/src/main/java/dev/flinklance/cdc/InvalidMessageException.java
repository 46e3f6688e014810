package dev.flinklance.cdc;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.runtime.throwable.ThrowableAnnotation;
import org.apache.flink.runtime.throwable.ThrowableType;

/**
 * A Kafka message the CDC sync cannot apply: not JSON, not a Debezium change event, a table without
 * a primary key, a value that does not fit its column. The message says which and where; {@code
 * sink.on-invalid-record} decides whether the job fails or skips the message. The message comes
 * back after every restart, so it fails the job without restarts, as the sink's invalid records do.
 */
@PublicEvolving
@ThrowableAnnotation(ThrowableType.NonRecoverableError)
public class InvalidMessageException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public InvalidMessageException(String message) {
    super(message);
  }

  public InvalidMessageException(String message, Throwable cause) {
    super(message, cause);
  }
}
