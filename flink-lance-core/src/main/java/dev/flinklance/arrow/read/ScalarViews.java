package dev.flinklance.arrow.read;

import java.math.BigDecimal;
import java.math.BigInteger;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeNanoVector;
import org.apache.arrow.vector.TimeSecVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VariableWidthFieldVector;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.columnar.vector.BooleanColumnVector;
import org.apache.flink.table.data.columnar.vector.ByteColumnVector;
import org.apache.flink.table.data.columnar.vector.BytesColumnVector;
import org.apache.flink.table.data.columnar.vector.DecimalColumnVector;
import org.apache.flink.table.data.columnar.vector.DoubleColumnVector;
import org.apache.flink.table.data.columnar.vector.FloatColumnVector;
import org.apache.flink.table.data.columnar.vector.IntColumnVector;
import org.apache.flink.table.data.columnar.vector.LongColumnVector;
import org.apache.flink.table.data.columnar.vector.ShortColumnVector;
import org.apache.flink.table.data.columnar.vector.TimestampColumnVector;

/**
 * Flink views of Arrow's scalar vectors. Fixed-width values are read straight from the Arrow data
 * buffer; a view that also takes other encodings of the same Flink type (an unsigned or narrower
 * integer, another time unit) converts on read.
 */
final class ScalarViews {
  private static final long MILLIS_PER_DAY = 86_400_000L;

  private ScalarViews() {}

  /** Null handling shared by every view. */
  abstract static class ArrowView<V extends ValueVector> {
    final V vector;

    ArrowView(V vector) {
      this.vector = vector;
    }

    public boolean isNullAt(int i) {
      return vector.isNull(i);
    }
  }

  static final class BooleanView extends ArrowView<BitVector> implements BooleanColumnVector {
    BooleanView(BitVector vector) {
      super(vector);
    }

    @Override
    public boolean getBoolean(int i) {
      return vector.get(i) != 0;
    }
  }

  static final class TinyIntView extends ArrowView<TinyIntVector> implements ByteColumnVector {
    TinyIntView(TinyIntVector vector) {
      super(vector);
    }

    @Override
    public byte getByte(int i) {
      return vector.get(i);
    }
  }

  /** SMALLINT, and uint8 widened to it. */
  static final class SmallIntView extends ArrowView<FieldVector> implements ShortColumnVector {
    private final boolean unsigned;

    SmallIntView(FieldVector vector) {
      super(vector);
      this.unsigned = vector instanceof UInt1Vector;
    }

    @Override
    public short getShort(int i) {
      return unsigned
          ? (short) (vector.getDataBuffer().getByte(i) & 0xFF)
          : vector.getDataBuffer().getShort((long) i * 2);
    }
  }

  /**
   * INT, uint16 widened to it, DATE (days; also from date64 milliseconds) and TIME (Flink holds
   * milliseconds of the day whatever the unit; finer units are truncated).
   */
  static final class IntView extends ArrowView<FieldVector> implements IntColumnVector {
    private enum Kind {
      INT32,
      UINT16,
      DATE_MILLIS,
      TIME_SECONDS,
      TIME_MICROS,
      TIME_NANOS
    }

    private final Kind kind;

    IntView(FieldVector vector) {
      super(vector);
      if (vector instanceof UInt2Vector) {
        kind = Kind.UINT16;
      } else if (vector instanceof DateMilliVector) {
        kind = Kind.DATE_MILLIS;
      } else if (vector instanceof TimeSecVector) {
        kind = Kind.TIME_SECONDS;
      } else if (vector instanceof TimeMicroVector) {
        kind = Kind.TIME_MICROS;
      } else if (vector instanceof TimeNanoVector) {
        kind = Kind.TIME_NANOS;
      } else {
        kind = Kind.INT32; // int32, date32 (days), time32 (milliseconds)
      }
    }

    @Override
    public int getInt(int i) {
      switch (kind) {
        case INT32:
          return vector.getDataBuffer().getInt((long) i * 4);
        case UINT16:
          return vector.getDataBuffer().getShort((long) i * 2) & 0xFFFF;
        case DATE_MILLIS:
          return (int) Math.floorDiv(vector.getDataBuffer().getLong((long) i * 8), MILLIS_PER_DAY);
        case TIME_SECONDS:
          return vector.getDataBuffer().getInt((long) i * 4) * 1_000;
        case TIME_MICROS:
          return (int) (vector.getDataBuffer().getLong((long) i * 8) / 1_000L);
        default:
          return (int) (vector.getDataBuffer().getLong((long) i * 8) / 1_000_000L);
      }
    }
  }

  /** BIGINT, and uint32 widened to it. */
  static final class BigIntView extends ArrowView<FieldVector> implements LongColumnVector {
    private final boolean unsigned;

    BigIntView(FieldVector vector) {
      super(vector);
      this.unsigned = vector instanceof UInt4Vector;
    }

    @Override
    public long getLong(int i) {
      return unsigned
          ? Integer.toUnsignedLong(vector.getDataBuffer().getInt((long) i * 4))
          : vector.getDataBuffer().getLong((long) i * 8);
    }
  }

  /** FLOAT, and float16 widened to it. */
  static final class FloatView extends ArrowView<FieldVector> implements FloatColumnVector {
    private final boolean half;

    FloatView(FieldVector vector) {
      super(vector);
      this.half = vector instanceof Float2Vector;
    }

    @Override
    public float getFloat(int i) {
      return half
          ? ((Float2Vector) vector).getValueAsFloat(i)
          : vector.getDataBuffer().getFloat((long) i * 4);
    }
  }

  static final class DoubleView extends ArrowView<Float8Vector> implements DoubleColumnVector {
    DoubleView(Float8Vector vector) {
      super(vector);
    }

    @Override
    public double getDouble(int i) {
      return vector.getDataBuffer().getDouble((long) i * 8);
    }
  }

  /** DECIMAL from decimal128/256, and uint64 as DECIMAL(20, 0). */
  static final class DecimalView extends ArrowView<FieldVector> implements DecimalColumnVector {
    private static final BigInteger TWO_TO_64 = BigInteger.ONE.shiftLeft(64);

    DecimalView(FieldVector vector) {
      super(vector);
    }

    @Override
    public DecimalData getDecimal(int i, int precision, int scale) {
      if (vector instanceof DecimalVector decimals) {
        if (DecimalData.isCompact(precision)) {
          // Little-endian two's complement: the low 8 bytes are the value when it fits a long.
          long unscaled = decimals.getDataBuffer().getLong((long) i * DecimalVector.TYPE_WIDTH);
          return DecimalData.fromUnscaledLong(unscaled, precision, scale);
        }
        return DecimalData.fromBigDecimal(decimals.getObject(i), precision, scale);
      }
      if (vector instanceof Decimal256Vector decimals) {
        return DecimalData.fromBigDecimal(decimals.getObject(i), precision, scale);
      }
      long raw = ((UInt8Vector) vector).get(i);
      BigInteger value = BigInteger.valueOf(raw);
      if (raw < 0) {
        value = value.add(TWO_TO_64);
      }
      return DecimalData.fromBigDecimal(new BigDecimal(value), precision, scale);
    }
  }

  /** STRING and BYTES from every Arrow string and binary layout. */
  static final class BytesView extends ArrowView<FieldVector> implements BytesColumnVector {
    BytesView(FieldVector vector) {
      super(vector);
    }

    @Override
    public Bytes getBytes(int i) {
      byte[] value =
          vector instanceof FixedSizeBinaryVector fixed
              ? fixed.get(i)
              : ((VariableWidthFieldVector) vector).get(i);
      return new Bytes(value, 0, value.length);
    }
  }

  /**
   * TIMESTAMP and TIMESTAMP_LTZ in every unit. Zone-less Arrow timestamps hold the wall-clock time
   * as if in UTC, which is Flink's representation of TIMESTAMP; zoned ones hold the instant.
   */
  static final class TimestampView extends ArrowView<TimeStampVector>
      implements TimestampColumnVector {
    private final TimeUnit unit;

    TimestampView(TimeStampVector vector) {
      super(vector);
      this.unit = ((ArrowType.Timestamp) vector.getField().getType()).getUnit();
    }

    @Override
    public TimestampData getTimestamp(int i, int precision) {
      long value = vector.get(i);
      switch (unit) {
        case SECOND:
          return TimestampData.fromEpochMillis(value * 1_000L);
        case MILLISECOND:
          return TimestampData.fromEpochMillis(value);
        case MICROSECOND:
          return TimestampData.fromEpochMillis(
              Math.floorDiv(value, 1_000L), (int) Math.floorMod(value, 1_000L) * 1_000);
        default:
          return TimestampData.fromEpochMillis(
              Math.floorDiv(value, 1_000_000L), (int) Math.floorMod(value, 1_000_000L));
      }
    }
  }
}
