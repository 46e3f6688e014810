package dev.flinklance.cdc;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.types.logical.LogicalType;

/**
 * A column's Flink type and how a Debezium JSON value of the column becomes Flink's internal value
 * of that type ({@code StringData}, {@code DecimalData}, {@code TimestampData}, ...).
 */
@Internal
record ColumnType(LogicalType type, ValueReader reader) {

  /** Reads one non-null JSON value; throws {@link InvalidMessageException} for one it cannot. */
  @FunctionalInterface
  interface ValueReader {
    Object read(JsonNode value);
  }

  /** The value, or null for a JSON null or a missing field. */
  Object read(JsonNode value) {
    return value == null || value.isNull() ? null : reader.read(value);
  }
}
