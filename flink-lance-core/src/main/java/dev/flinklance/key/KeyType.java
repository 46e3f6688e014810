package dev.flinklance.key;

import dev.flinklance.filter.LanceSqlText;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.Optional;
import java.util.function.IntFunction;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;

/**
 * The kinds of values a primary key column holds, each with one Java form: every integer width is a
 * {@link Long}, strings are {@link String}s, dates are {@link Integer} days since the epoch. One
 * form per kind is what makes a key read back from a table equal to the key of a Flink row,
 * whatever integer width either side uses. These are the types Lance's BTree index takes and a
 * Lance SQL literal writes exactly.
 */
@Internal
public enum KeyType {
  INTEGER,
  STRING,
  DATE;

  /** What the messages name as the supported types. */
  public static final String SUPPORTED =
      "TINYINT, SMALLINT, INT, BIGINT, CHAR, VARCHAR/STRING, DATE";

  /** Whether a column of this Flink type can be a key ({@link PrimaryKey#of}). */
  public static boolean supports(LogicalType type) {
    return of(type).isPresent();
  }

  /** The kind of a Flink column type, or empty if it cannot be a key. */
  static Optional<KeyType> of(LogicalType type) {
    switch (type.getTypeRoot()) {
      case TINYINT:
      case SMALLINT:
      case INTEGER:
      case BIGINT:
        return Optional.of(INTEGER);
      case CHAR:
      case VARCHAR:
        return Optional.of(STRING);
      case DATE:
        return Optional.of(DATE);
      default:
        return Optional.empty();
    }
  }

  /** The kind of a table column's Arrow type, or empty if it cannot be a key. */
  static Optional<KeyType> of(ArrowType type) {
    switch (type.getTypeID()) {
      case Int:
        ArrowType.Int integer = (ArrowType.Int) type;
        // uint64 does not fit a long
        return integer.getIsSigned() || integer.getBitWidth() < 64
            ? Optional.of(INTEGER)
            : Optional.empty();
      case Utf8:
      case LargeUtf8:
        return Optional.of(STRING);
      case Date:
        return ((ArrowType.Date) type).getUnit() == DateUnit.DAY
            ? Optional.of(DATE)
            : Optional.empty();
      default:
        return Optional.empty();
    }
  }

  /** The value at {@code pos} of a Flink row whose column there has {@code type}; not null. */
  Object read(RowData row, int pos, LogicalType type) {
    switch (type.getTypeRoot()) {
      case TINYINT:
        return (long) row.getByte(pos);
      case SMALLINT:
        return (long) row.getShort(pos);
      case INTEGER:
        return (long) row.getInt(pos);
      case BIGINT:
        return row.getLong(pos);
      case DATE:
        return row.getInt(pos);
      default:
        return row.getString(pos).toString();
    }
  }

  /**
   * Reads this kind's values out of an Arrow vector of a table column (null where the table holds a
   * null, which no key equals).
   */
  IntFunction<Object> reader(FieldVector vector) {
    switch (this) {
      case INTEGER:
        BaseIntVector integers = (BaseIntVector) vector;
        return i -> vector.isNull(i) ? null : integers.getValueAsLong(i);
      case DATE:
        DateDayVector days = (DateDayVector) vector;
        return i -> days.isNull(i) ? null : days.get(i);
      default:
        if (vector instanceof LargeVarCharVector large) {
          return i -> large.isNull(i) ? null : new String(large.get(i), StandardCharsets.UTF_8);
        }
        VarCharVector strings = (VarCharVector) vector;
        return i -> strings.isNull(i) ? null : new String(strings.get(i), StandardCharsets.UTF_8);
    }
  }

  /**
   * The value as a Lance SQL literal, or empty where Lance would not read it back exactly: it reads
   * {@code -9223372036854775808} as a float (the minus is an operator), writes dates in years 1 to
   * 9999 only, and no string with an unpaired surrogate.
   */
  Optional<String> literal(Object value) {
    switch (this) {
      case INTEGER:
        long number = (Long) value;
        return number == Long.MIN_VALUE ? Optional.empty() : Optional.of(Long.toString(number));
      case DATE:
        LocalDate date = LocalDate.ofEpochDay((Integer) value);
        return date.getYear() < 1 || date.getYear() > 9999
            ? Optional.empty()
            : Optional.of("DATE '" + date + "'");
      default:
        // Lance's JNI layer takes a filter as modified UTF-8: NUL and characters beyond the BMP
        // are spelled out by quote; a lone surrogate has no UTF-8 at all
        String text = (String) value;
        return LanceSqlText.wellFormed(text)
            ? Optional.of(LanceSqlText.quote(text))
            : Optional.empty();
    }
  }
}
