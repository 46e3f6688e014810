package dev.flinklance.sink.dynamic;

import dev.flinklance.arrow.ArrowSchemaConverter;
import dev.flinklance.arrow.read.ArrowTypeConverter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;
import org.apache.flink.table.types.logical.utils.LogicalTypeParser;

/**
 * Row types of the dynamic sink's records: their wire form, and how the schemas of two records of
 * one table combine.
 */
final class RowTypes {
  private RowTypes() {}

  /** The type's text form, which {@link #parse} reads back (Flink SQL's type syntax). */
  static String text(RowType type) {
    return type.asSerializableString();
  }

  static RowType parse(String text) {
    return (RowType) LogicalTypeParser.parse(text, RowTypes.class.getClassLoader());
  }

  /** The key columns of {@code rowType}, as a row type of their own. */
  static RowType keyType(RowType rowType, List<String> key) {
    List<RowType.RowField> fields = new ArrayList<>();
    for (String column : key) {
      fields.add(rowType.getFields().get(rowType.getFieldIndex(column)));
    }
    return new RowType(false, fields);
  }

  /**
   * Whether rows of {@code narrow} can be written as rows of {@code wide}: each of its columns is
   * one of {@code wide}'s, stored alike ({@link #sameColumn}) or widened without loss ({@link
   * #widens}); nullability aside (a NOT NULL column of {@code wide} rejects the nulls it gets).
   */
  static boolean covers(RowType wide, RowType narrow) {
    for (RowType.RowField field : narrow.getFields()) {
      int index = wide.getFieldIndex(field.getName());
      if (index < 0 || !takes(wide.getTypeAt(index), field.getType())) {
        return false;
      }
    }
    return true;
  }

  /** Whether a column of type {@code column} takes values of type {@code value}. */
  static boolean takes(LogicalType column, LogicalType value) {
    return sameColumn(column, value) || widens(column, value);
  }

  /**
   * Whether both types are stored as the same Lance column: VARCHAR(10) and STRING are both Arrow
   * Utf8, so records of one fill a column made from the other unchanged.
   */
  static boolean sameColumn(LogicalType a, LogicalType b) {
    if (a.copy(true).equals(b.copy(true))) {
      return true;
    }
    try {
      return arrowOf(a).equals(arrowOf(b));
    } catch (RuntimeException unsupported) {
      return false; // a type without a Lance column: only equal types match
    }
  }

  private static Field arrowOf(LogicalType type) {
    return ArrowSchemaConverter.toArrowSchema(
            RowType.of(new LogicalType[] {type.copy(true)}, new String[] {"c"}), Map.of())
        .getFields()
        .get(0);
  }

  /**
   * Whether every value of {@code value} is a value of {@code column}, converted by {@link
   * #converter}: integers into wider integers, FLOAT into DOUBLE, a DECIMAL into one of the same
   * scale and more digits, a TIMESTAMP into one of more fractional digits.
   */
  static boolean widens(LogicalType column, LogicalType value) {
    LogicalTypeRoot to = column.getTypeRoot();
    LogicalTypeRoot from = value.getTypeRoot();
    int toRank = INTEGERS.indexOf(to);
    int fromRank = INTEGERS.indexOf(from);
    if (toRank >= 0 && fromRank >= 0) {
      return fromRank < toRank;
    }
    if (to == LogicalTypeRoot.DOUBLE && from == LogicalTypeRoot.FLOAT) {
      return true;
    }
    if (column instanceof DecimalType wide && value instanceof DecimalType narrow) {
      return wide.getScale() == narrow.getScale() && wide.getPrecision() > narrow.getPrecision();
    }
    if (to == from
        && (to == LogicalTypeRoot.TIMESTAMP_WITHOUT_TIME_ZONE
            || to == LogicalTypeRoot.TIMESTAMP_WITH_LOCAL_TIME_ZONE)) {
      return LogicalTypeChecks.getPrecision(column) > LogicalTypeChecks.getPrecision(value);
    }
    return false;
  }

  private static final List<LogicalTypeRoot> INTEGERS =
      List.of(
          LogicalTypeRoot.TINYINT,
          LogicalTypeRoot.SMALLINT,
          LogicalTypeRoot.INTEGER,
          LogicalTypeRoot.BIGINT);

  /**
   * How an internal value of {@code value} becomes one of {@code column}, for types {@code column}
   * {@link #takes}: unchanged where both are stored alike.
   */
  static UnaryOperator<Object> converter(LogicalType column, LogicalType value) {
    if (sameColumn(column, value)) {
      return UnaryOperator.identity();
    }
    return switch (column.getTypeRoot()) {
      case SMALLINT -> v -> ((Number) v).shortValue();
      case INTEGER -> v -> ((Number) v).intValue();
      case BIGINT -> v -> ((Number) v).longValue();
      case DOUBLE -> v -> ((Number) v).doubleValue();
      case DECIMAL -> {
        DecimalType decimal = (DecimalType) column;
        yield v ->
            DecimalData.fromBigDecimal(
                ((DecimalData) v).toBigDecimal(), decimal.getPrecision(), decimal.getScale());
      }
      default -> UnaryOperator.identity(); // timestamps: TimestampData keeps every digit
    };
  }

  /**
   * {@code record} with the type of an existing table's column wherever the record's values widen
   * into it (INT into a BIGINT column): a table an earlier job or another client made keeps its
   * types. Columns the table lacks, or whose type has no Flink equivalent, keep the record's type.
   */
  static RowType towardTable(RowType record, Schema table) {
    List<RowType.RowField> fields = new ArrayList<>();
    for (RowType.RowField field : record.getFields()) {
      LogicalType type = field.getType();
      Field column =
          table.getFields().stream()
              .filter(f -> f.getName().equals(field.getName()))
              .findFirst()
              .orElse(null);
      if (column != null) {
        try {
          LogicalType tableType = ArrowTypeConverter.toLogicalType(column, null);
          if (widens(tableType, type)) {
            type = tableType.copy(type.isNullable());
          }
        } catch (RuntimeException noFlinkType) {
          // the record's own type, which the writer then checks against the column
        }
      }
      fields.add(new RowType.RowField(field.getName(), type, field.getDescription().orElse(null)));
    }
    return new RowType(record.isNullable(), fields);
  }

  /**
   * {@code current}'s columns, then the columns of {@code record} it lacks, nullable (a column
   * added to a table cannot be NOT NULL: its older rows have no value).
   *
   * @throws IllegalArgumentException naming the table, the column and both types, where a column
   *     has another type in {@code record} (lance-core cannot change a column's type in place)
   */
  static RowType union(RowType current, RowType record, String table) {
    List<RowType.RowField> fields = new ArrayList<>(current.getFields());
    for (RowType.RowField field : record.getFields()) {
      int index = current.getFieldIndex(field.getName());
      if (index < 0) {
        fields.add(
            new RowType.RowField(
                field.getName(), field.getType().copy(true), field.getDescription().orElse(null)));
      } else if (!takes(current.getTypeAt(index), field.getType())) {
        throw new IllegalArgumentException(
            String.format(
                "Column '%s' of Lance table '%s' is %s, but a record has it as %s: the table's"
                    + " column types cannot change (lance-core 7.0.0 has no in-place type change,"
                    + " not even a widening); records may only bring the column's type or a"
                    + " narrower one (INT into BIGINT, FLOAT into DOUBLE, ...). Write the column"
                    + " under a new name, or recreate the table",
                field.getName(),
                table,
                current.getTypeAt(index).asSummaryString(),
                field.getType().asSummaryString()));
      }
    }
    return new RowType(current.isNullable(), fields);
  }
}
