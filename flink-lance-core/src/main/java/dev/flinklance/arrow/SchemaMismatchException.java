package dev.flinklance.arrow;

/** The stream's schema cannot be written into the existing table's schema. */
public final class SchemaMismatchException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public SchemaMismatchException(String message) {
    super(message);
  }
}
