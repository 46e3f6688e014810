package dev.flinklance.arrow;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.table.types.logical.LogicalType;

/** A Flink type that has no Lance/Arrow mapping, named by its column path. */
@PublicEvolving
public final class UnsupportedTypeException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public UnsupportedTypeException(String columnPath, LogicalType type) {
    super(
        String.format(
            "Column '%s' has type %s, which the Lance sink does not support. Supported: BOOLEAN,"
                + " TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, DECIMAL, CHAR, VARCHAR, BINARY,"
                + " VARBINARY, DATE, TIME, TIMESTAMP, TIMESTAMP_LTZ, ARRAY, MAP, ROW.",
            columnPath, type.asSummaryString()));
  }
}
