package dev.flinklance.schema;

import org.apache.flink.annotation.Internal;

/** Where a column goes among its siblings: last, first, or after a named one. */
@Internal
public record ColumnPosition(Where where, String after) {

  /** The three places SQL's {@code ADD ... [FIRST | AFTER x]} names. */
  public enum Where {
    LAST,
    FIRST,
    AFTER
  }

  public static final ColumnPosition LAST = new ColumnPosition(Where.LAST, null);
  public static final ColumnPosition FIRST = new ColumnPosition(Where.FIRST, null);

  public static ColumnPosition after(String sibling) {
    return new ColumnPosition(Where.AFTER, sibling);
  }

  @Override
  public String toString() {
    return switch (where) {
      case LAST -> "";
      case FIRST -> " FIRST";
      case AFTER -> " AFTER " + ColumnPath.quote(after);
    };
  }
}
