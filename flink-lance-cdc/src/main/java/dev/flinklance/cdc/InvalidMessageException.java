package dev.flinklance.cdc;

import org.apache.flink.annotation.PublicEvolving;

/**
 * A Kafka message the CDC sync cannot apply: not JSON, not a Debezium change event, a table without
 * a primary key, a value that does not fit its column. The message says which and where; {@code
 * sink.on-invalid-record} decides whether the job fails or skips the message.
 */
@PublicEvolving
public class InvalidMessageException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public InvalidMessageException(String message) {
    super(message);
  }

  public InvalidMessageException(String message, Throwable cause) {
    super(message, cause);
  }
}
