package dev.flinklance.arrow.write;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VariableWidthFieldVector;

/**
 * A writer for a leaf (non-nested) type. The common types are written by a switch on their {@link
 * Kind} in this one method, the others by a {@link Setter}: a call through a setter per value is an
 * interface call the JIT cannot inline once the columns have more than two types (the largest part
 * of the narrow-row profile). It makes room for the slot first, so fixed-width values go straight
 * into the vector's memory: Arrow's {@code setSafe} recomputes the vector's capacity from its
 * buffers for every value, and even its unchecked {@code set} checks bounds and reference counts.
 * Top-level values of the common types are stored by the code {@link ConversionCompiler} generates,
 * which calls this writer for nulls and growth; the switch writes them inside nested types and
 * where Janino is missing.
 */
final class LeafWriter<V extends FieldVector> extends FieldWriter<V> {

  /** The types this class writes itself; {@code SETTER} for the others. */
  enum Kind {
    BOOLEAN,
    TINYINT,
    SMALLINT,
    INT,
    BIGINT,
    FLOAT,
    DOUBLE,
    STRING,
    TIMESTAMP_MILLIS,
    SETTER
  }

  /**
   * Copies the non-null value at {@code pos} of {@code source} into slot {@code index}, which the
   * vector has room for (a variable-width value's bytes may still need room).
   */
  @FunctionalInterface
  interface Setter<V> {
    void set(V vector, ValueReader source, int pos, int index);
  }

  private static final byte[] EMPTY = new byte[0];

  private final Kind kind;
  private final Setter<V> setter;

  /** The vector as a fixed-width one (null for strings): its buffers without interface calls. */
  private final BaseFixedWidthVector fixed;

  /** Flink's precision of a TIMESTAMP_MILLIS column. */
  private final int precision;

  /** Slots the vector is known to have room for (asking it is an interface call per value). */
  private int room;

  private LeafWriter(V vector, String path, Kind kind, Setter<V> setter, int precision) {
    super(vector, path);
    this.kind = kind;
    this.setter = setter;
    this.fixed = vector instanceof BaseFixedWidthVector f ? f : null;
    this.precision = precision;
  }

  static <V extends FieldVector> LeafWriter<V> of(V vector, String path, Setter<V> setter) {
    return new LeafWriter<>(vector, path, Kind.SETTER, setter, 0);
  }

  /**
   * @param vector the vector {@code kind} writes: BitVector, TinyIntVector, ..., VarCharVector
   */
  static <V extends FieldVector> LeafWriter<V> of(V vector, String path, Kind kind) {
    return new LeafWriter<>(vector, path, kind, null, 0);
  }

  /** Flink timestamps of {@code precision} into a millisecond Arrow timestamp. */
  static LeafWriter<TimeStampVector> timestampMillis(
      TimeStampVector vector, String path, int precision) {
    return new LeafWriter<>(vector, path, Kind.TIMESTAMP_MILLIS, null, precision);
  }

  Kind kind() {
    return kind;
  }

  /** Flink's precision of a TIMESTAMP_MILLIS column. */
  int precision() {
    return precision;
  }

  @Override
  void writeValue(ValueReader source, int pos, int index) {
    makeRoom(index);
    switch (kind) {
      case BOOLEAN:
        setBit(fixed.getDataBuffer(), index, source.getBoolean(pos));
        break;
      case TINYINT:
        MemoryUtil.putByte(valueAddress(index, 1), source.getByte(pos));
        break;
      case SMALLINT:
        MemoryUtil.putShort(valueAddress(index, 2), source.getShort(pos));
        break;
      case INT:
        MemoryUtil.putInt(valueAddress(index, 4), source.getInt(pos));
        break;
      case BIGINT:
        MemoryUtil.putLong(valueAddress(index, 8), source.getLong(pos));
        break;
      case FLOAT:
        MemoryUtil.putInt(valueAddress(index, 4), Float.floatToRawIntBits(source.getFloat(pos)));
        break;
      case DOUBLE:
        MemoryUtil.putLong(
            valueAddress(index, 8), Double.doubleToRawLongBits(source.getDouble(pos)));
        break;
      case STRING:
        StringCopier.set((VarCharVector) vector, index, source.getString(pos));
        return; // sets its validity bit
      case TIMESTAMP_MILLIS:
        MemoryUtil.putLong(
            valueAddress(index, 8), source.getTimestamp(pos, precision).getMillisecond());
        break;
      default:
        setter.set(vector, source, pos, index);
        return; // Arrow's own set marks the slot
    }
    setBit(fixed.getValidityBuffer(), index, true);
  }

  /**
   * Where slot {@code index} of a fixed-width vector starts. Read from the vector each time: a
   * buffer moves when it grows. Writing there directly skips Arrow's per-value bounds and
   * reference-count checks (a seventh of the narrow-row profile); {@link #makeRoom} made sure the
   * slot exists. Arrow's buffers are little-endian, as is every platform Lance's native code runs
   * on.
   */
  private long valueAddress(int index, int width) {
    return fixed.getDataBuffer().memoryAddress() + (long) index * width;
  }

  /** Marks slot {@code index} valid in the validity bits at {@code bits}. */
  static void setValid(long bits, int index) {
    long address = bits + (index >>> 3);
    MemoryUtil.putByte(address, (byte) (MemoryUtil.getByte(address) | (1 << (index & 7))));
  }

  private static void setBit(ArrowBuf bits, int index, boolean set) {
    long address = bits.memoryAddress() + (index >>> 3);
    int mask = 1 << (index & 7);
    byte current = MemoryUtil.getByte(address);
    MemoryUtil.putByte(address, (byte) (set ? current | mask : current & ~mask));
  }

  /**
   * Clears the slot's validity bit: a failed row may have set it before the row that takes its
   * place writes a null here. A fixed-width slot's value is zeroed too, as the batch's values are
   * not zeroed when it is allocated: a null's bytes then come out the same in every file.
   */
  @Override
  void setNull(int index) {
    makeRoom(index);
    setBit(vector.getValidityBuffer(), index, false);
    int width = fixed == null ? 0 : fixed.getTypeWidth(); // a BitVector's is 0: bits, not bytes
    if (width > 0) {
      fixed.getDataBuffer().setZero((long) index * width, width);
    }
  }

  /** Makes the vector's capacity reach past {@code index}; its buffers move if it grows. */
  void makeRoom(int index) {
    if (index < room) {
      return;
    }
    while (vector.getValueCapacity() <= index) {
      vector.reAlloc();
    }
    room = vector.getValueCapacity();
  }

  @Override
  void forgetRoom() {
    room = 0;
  }

  @Override
  void setPlaceholder(int index) {
    if (vector instanceof VariableWidthFieldVector) {
      ((VariableWidthFieldVector) vector).setSafe(index, EMPTY);
    } else {
      setNull(index); // makes room; the value bits are never read
      ((BaseFixedWidthVector) vector).setIndexDefined(index);
    }
  }
}
