package dev.flinklance.table.filter;

import dev.flinklance.filter.LanceSqlText;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Optional;
import java.util.Set;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.expressions.ValueLiteralExpression;
import org.apache.flink.table.types.logical.LogicalTypeFamily;
import org.apache.flink.table.types.logical.LogicalTypeRoot;

/**
 * Writes a Flink literal in Lance's SQL dialect, for comparison with a column of a given Arrow
 * type, or declines. Lance converts a literal to the column's type before comparing, and fails or
 * rounds where the value does not fit (measured with lance-core 7.0.0): a literal is written only
 * when the column's type holds it exactly, so that Lance compares exactly what Flink would.
 */
@Internal
public final class LanceLiterals {
  private static final DateTimeFormatter DATE = DateTimeFormatter.ofPattern("uuuu-MM-dd");
  // Lance parses timestamp literals to microseconds: finer literals are not written at all.
  private static final DateTimeFormatter TIMESTAMP =
      DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.SSSSSS");
  private static final Set<String> UTC_ZONES = Set.of("UTC", "Etc/UTC", "Z", "+00:00", "GMT");
  // Nanosecond timestamps span 1677-09-21 to 2262-04-11.
  private static final int NANOS_FIRST_YEAR = 1678;
  private static final int NANOS_LAST_YEAR = 2261;

  private LanceLiterals() {}

  /** Whether Lance compares values of this column type exactly as Flink does. */
  static boolean comparable(ArrowType type) {
    switch (type.getTypeID()) {
      case Bool:
      case Utf8:
      case LargeUtf8:
        return true;
      case Int:
        // uint64 reads as DECIMAL(20, 0); Lance's literals stop at int64
        ArrowType.Int integer = (ArrowType.Int) type;
        return integer.getIsSigned() || integer.getBitWidth() < 64;
      case Decimal:
        return ((ArrowType.Decimal) type).getBitWidth() == 128;
      case Date:
        return ((ArrowType.Date) type).getUnit() == DateUnit.DAY;
      case Timestamp:
        String zone = ((ArrowType.Timestamp) type).getTimezone();
        // Lance reads a literal in the column's zone and ignores an offset in it: only UTC
        // (and zone-less) columns have one literal per instant.
        return zone == null || UTC_ZONES.contains(zone);
      default:
        return false;
    }
  }

  /** The literal as Lance SQL for a column of {@code type}, if it fits that type exactly. */
  static Optional<String> format(ValueLiteralExpression literal, ArrowType type) {
    if (literal.isNull()) {
      return Optional.empty();
    }
    LogicalTypeRoot root = literal.getOutputDataType().getLogicalType().getTypeRoot();
    switch (type.getTypeID()) {
      case Bool:
        return root == LogicalTypeRoot.BOOLEAN
            ? literal.getValueAs(Boolean.class).map(b -> b ? "TRUE" : "FALSE")
            : Optional.empty();
      case Utf8:
      case LargeUtf8:
        return root.getFamilies().contains(LogicalTypeFamily.CHARACTER_STRING)
            ? literal
                .getValueAs(String.class)
                .filter(LanceSqlText::wellFormed)
                .map(LanceSqlText::quote)
            : Optional.empty();
      case Int:
        return exactNumber(literal, root).flatMap(n -> integer(n, (ArrowType.Int) type));
      case Decimal:
        return exactNumber(literal, root).flatMap(n -> decimal(n, (ArrowType.Decimal) type));
      case Date:
        return root == LogicalTypeRoot.DATE
            ? literal.getValueAs(LocalDate.class).flatMap(LanceLiterals::date)
            : Optional.empty();
      case Timestamp:
        return timestamp(literal, root, (ArrowType.Timestamp) type);
      default:
        return Optional.empty();
    }
  }

  private static Optional<BigDecimal> exactNumber(
      ValueLiteralExpression literal, LogicalTypeRoot root) {
    if (!root.getFamilies().contains(LogicalTypeFamily.EXACT_NUMERIC)) {
      return Optional.empty();
    }
    return literal.getValueAs(BigDecimal.class);
  }

  private static Optional<String> integer(BigDecimal value, ArrowType.Int type) {
    BigInteger exact;
    try {
      exact = value.toBigIntegerExact();
    } catch (ArithmeticException e) {
      return Optional.empty();
    }
    int bits = type.getBitWidth();
    BigInteger min =
        type.getIsSigned() ? BigInteger.ONE.shiftLeft(bits - 1).negate() : BigInteger.ZERO;
    BigInteger max =
        type.getIsSigned()
            ? BigInteger.ONE.shiftLeft(bits - 1).subtract(BigInteger.ONE)
            : BigInteger.ONE.shiftLeft(bits).subtract(BigInteger.ONE);
    if (exact.compareTo(min) < 0 || exact.compareTo(max) > 0) {
      return Optional.empty();
    }
    if (exact.equals(BigInteger.valueOf(Long.MIN_VALUE))) {
      // Lance reads -9223372036854775808 as a float (the minus is an operator)
      return Optional.of("(-9223372036854775807 - 1)");
    }
    return Optional.of(exact.toString());
  }

  private static Optional<String> decimal(BigDecimal value, ArrowType.Decimal type) {
    BigDecimal scaled;
    try {
      scaled = value.setScale(type.getScale());
    } catch (ArithmeticException e) {
      return Optional.empty(); // more fractional digits than the column: Lance would round
    }
    if (scaled.precision() > type.getPrecision()) {
      return Optional.empty();
    }
    return Optional.of(
        String.format(
            "CAST('%s' AS DECIMAL(%d,%d))",
            scaled.toPlainString(), type.getPrecision(), type.getScale()));
  }

  private static Optional<String> date(LocalDate date) {
    if (date.getYear() < 1 || date.getYear() > 9999) {
      return Optional.empty();
    }
    return Optional.of("DATE '" + DATE.format(date) + "'");
  }

  private static Optional<String> timestamp(
      ValueLiteralExpression literal, LogicalTypeRoot root, ArrowType.Timestamp type) {
    Optional<LocalDateTime> value;
    if (type.getTimezone() == null && root == LogicalTypeRoot.TIMESTAMP_WITHOUT_TIME_ZONE) {
      value = literal.getValueAs(LocalDateTime.class);
    } else if (type.getTimezone() != null
        && root == LogicalTypeRoot.TIMESTAMP_WITH_LOCAL_TIME_ZONE) {
      value =
          literal.getValueAs(Instant.class).map(i -> LocalDateTime.ofInstant(i, ZoneOffset.UTC));
    } else {
      return Optional.empty();
    }
    return value
        .filter(t -> fitsUnit(t, type.getUnit()))
        .map(t -> "TIMESTAMP '" + TIMESTAMP.format(t) + "'");
  }

  private static boolean fitsUnit(LocalDateTime value, TimeUnit unit) {
    int nanos = value.getNano();
    int year = value.getYear();
    if (year < 1 || year > 9999 || nanos % 1_000 != 0) {
      return false;
    }
    switch (unit) {
      case SECOND:
        return nanos == 0;
      case MILLISECOND:
        return nanos % 1_000_000 == 0;
      case MICROSECOND:
        return true;
      default:
        return year >= NANOS_FIRST_YEAR && year <= NANOS_LAST_YEAR;
    }
  }
}
