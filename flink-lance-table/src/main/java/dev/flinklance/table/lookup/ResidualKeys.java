package dev.flinklance.table.lookup;

import dev.flinklance.key.KeyType;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

/**
 * The join's key columns that Lance does not look up by: those of a type it cannot compare with a
 * value exactly (FLOAT, DOUBLE, DECIMAL, TIMESTAMP, BOOLEAN, BINARY, ...). A constant condition on
 * the table, {@code ON c.id = u.id AND u.score = 10.0}, reaches the lookup as such a key column.
 * The rows are looked up by the other key columns and matched on these here, with SQL's {@code =}:
 * floating-point values compare as numbers (0.0 equals -0.0, NaN equals nothing), decimals by
 * value.
 */
final class ResidualKeys implements Serializable {
  private static final long serialVersionUID = 1L;

  private final int[] keyPositions;
  private final int[] rowPositions;
  private final LogicalType[] types;
  private final RowData.FieldGetter[] keyGetters;
  private final RowData.FieldGetter[] rowGetters;

  private ResidualKeys(int[] keyPositions, int[] rowPositions, LogicalType[] types) {
    this.keyPositions = keyPositions;
    this.rowPositions = rowPositions;
    this.types = types;
    this.keyGetters = new RowData.FieldGetter[types.length];
    this.rowGetters = new RowData.FieldGetter[types.length];
    for (int i = 0; i < types.length; i++) {
      keyGetters[i] = RowData.createFieldGetter(types[i], keyPositions[i]);
      rowGetters[i] = RowData.createFieldGetter(types[i], rowPositions[i]);
    }
  }

  /**
   * @param keyRowType the rows Flink looks up with
   * @param producedType the table rows a lookup returns
   */
  static ResidualKeys of(RowType keyRowType, RowType producedType) {
    List<Integer> keyPositions = new ArrayList<>();
    List<LogicalType> types = new ArrayList<>();
    for (int i = 0; i < keyRowType.getFieldCount(); i++) {
      if (!KeyType.supports(keyRowType.getTypeAt(i))) {
        keyPositions.add(i);
        types.add(keyRowType.getTypeAt(i));
      }
    }
    return new ResidualKeys(
        keyPositions.stream().mapToInt(Integer::intValue).toArray(),
        keyPositions.stream()
            .mapToInt(i -> producedType.getFieldIndex(keyRowType.getFieldNames().get(i)))
            .toArray(),
        types.toArray(LogicalType[]::new));
  }

  /** Whether a column of this type can be matched here: scalars; nested types cannot. */
  static boolean supports(LogicalType type) {
    return switch (type.getTypeRoot()) {
      case BOOLEAN,
              BINARY,
              VARBINARY,
              DECIMAL,
              FLOAT,
              DOUBLE,
              TIME_WITHOUT_TIME_ZONE,
              TIMESTAMP_WITHOUT_TIME_ZONE,
              TIMESTAMP_WITH_TIME_ZONE,
              TIMESTAMP_WITH_LOCAL_TIME_ZONE,
              INTERVAL_YEAR_MONTH,
              INTERVAL_DAY_TIME ->
          true;
      default -> false;
    };
  }

  /**
   * The values of one of Flink's key rows, copied (Flink may reuse the key row), or empty if one is
   * NULL: {@code =} matches no row then.
   */
  Optional<Object[]> valuesOf(RowData keyRow) {
    Object[] values = new Object[keyPositions.length];
    for (int i = 0; i < keyPositions.length; i++) {
      if (keyRow.isNullAt(keyPositions[i])) {
        return Optional.empty();
      }
      Object value = keyGetters[i].getFieldOrNull(keyRow);
      values[i] = value instanceof byte[] bytes ? bytes.clone() : value;
    }
    return Optional.of(values);
  }

  /** The rows whose residual key columns equal {@code values}. */
  List<RowData> matching(List<RowData> rows, Object[] values) {
    if (keyPositions.length == 0) {
      return rows;
    }
    return rows.stream().filter(row -> matches(row, values)).toList();
  }

  private boolean matches(RowData row, Object[] values) {
    for (int i = 0; i < rowPositions.length; i++) {
      Object actual = rowGetters[i].getFieldOrNull(row);
      if (actual == null || !equal(types[i], actual, values[i])) {
        return false;
      }
    }
    return true;
  }

  private static boolean equal(LogicalType type, Object actual, Object value) {
    return switch (type.getTypeRoot()) {
      case FLOAT -> (Float) actual == ((Float) value).floatValue();
      case DOUBLE -> (Double) actual == ((Double) value).doubleValue();
      case DECIMAL -> ((DecimalData) actual).compareTo((DecimalData) value) == 0;
      case BINARY, VARBINARY -> Arrays.equals((byte[]) actual, (byte[]) value);
      default -> Objects.equals(actual, value);
    };
  }
}
