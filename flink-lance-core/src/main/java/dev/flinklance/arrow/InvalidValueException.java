package dev.flinklance.arrow;

import org.apache.flink.annotation.Internal;

/** A record value the table cannot take (null into NOT NULL, wrong vector dimension, ...). */
@Internal
public final class InvalidValueException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public InvalidValueException(String columnPath, String problem) {
    super(String.format("Column '%s': %s", columnPath, problem));
  }
}
