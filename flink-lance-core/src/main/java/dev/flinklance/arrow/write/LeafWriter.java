package dev.flinklance.arrow.write;

import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VariableWidthFieldVector;

/**
 * A writer for a leaf (non-nested) type. The common types are written by a switch on their {@link
 * Kind} in this one method, the others by a {@link Setter}: a call through a setter per value is an
 * interface call the JIT cannot inline once the columns have more than two types (the largest part
 * of the narrow-row profile). It makes room for the slot first, so fixed-width values go in with
 * Arrow's unchecked {@code set}: Arrow's {@code setSafe} recomputes the vector's capacity from its
 * buffers for every value.
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

  /** Flink's precision of a TIMESTAMP_MILLIS column. */
  private final int precision;

  /** Slots the vector is known to have room for (asking it is an interface call per value). */
  private int room;

  private LeafWriter(V vector, String path, Kind kind, Setter<V> setter, int precision) {
    super(vector, path);
    this.kind = kind;
    this.setter = setter;
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

  @Override
  void writeValue(ValueReader source, int pos, int index) {
    makeRoom(index);
    switch (kind) {
      case BOOLEAN:
        ((BitVector) vector).set(index, source.getBoolean(pos) ? 1 : 0);
        break;
      case TINYINT:
        ((TinyIntVector) vector).set(index, source.getByte(pos));
        break;
      case SMALLINT:
        ((SmallIntVector) vector).set(index, source.getShort(pos));
        break;
      case INT:
        ((IntVector) vector).set(index, source.getInt(pos));
        break;
      case BIGINT:
        ((BigIntVector) vector).set(index, source.getLong(pos));
        break;
      case FLOAT:
        ((Float4Vector) vector).set(index, source.getFloat(pos));
        break;
      case DOUBLE:
        ((Float8Vector) vector).set(index, source.getDouble(pos));
        break;
      case STRING:
        StringCopier.set((VarCharVector) vector, index, source.getString(pos));
        break;
      case TIMESTAMP_MILLIS:
        ((TimeStampVector) vector).set(index, source.getTimestamp(pos, precision).getMillisecond());
        break;
      default:
        setter.set(vector, source, pos, index);
    }
  }

  /**
   * Clears the slot's validity bit: a failed row may have set it before the row that takes its
   * place writes a null here.
   */
  @Override
  void setNull(int index) {
    makeRoom(index);
    BitVectorHelper.unsetBit(vector.getValidityBuffer(), index);
  }

  private void makeRoom(int index) {
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
