package dev.flinklance.arrow;

import org.apache.flink.annotation.PublicEvolving;

/** The stream's schema cannot be written into the existing table's schema. */
@PublicEvolving
public final class SchemaMismatchException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public SchemaMismatchException(String message) {
    super(message);
  }
}
