package dev.flinklance.arrow.write;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;

/**
 * Copies a whole null-free primitive array (an embedding, typically) into a fixed-width child
 * vector in one go: one capacity check, one bulk memory copy of the values and whole-byte validity,
 * instead of a virtual call chain per element. Used by the list and vector writers; they fall back
 * to element-wise writing when an array holds nulls.
 */
final class BulkElementCopier {
  private final FieldVector vector;
  private final LogicalTypeRoot elementType;
  private final boolean elementsNullable;

  private BulkElementCopier(FieldVector vector, LogicalType elementType) {
    this.vector = vector;
    this.elementType = elementType.getTypeRoot();
    this.elementsNullable = elementType.isNullable();
  }

  /** A copier for the element type and child vector, or null if there is no fast path. */
  static BulkElementCopier of(LogicalType elementType, FieldVector childVector) {
    boolean supported =
        switch (elementType.getTypeRoot()) {
          case FLOAT -> childVector instanceof Float4Vector;
          case DOUBLE -> childVector instanceof Float8Vector;
          case TINYINT -> childVector instanceof TinyIntVector;
          case INTEGER -> childVector instanceof IntVector;
          case BIGINT -> childVector instanceof BigIntVector;
          default -> false;
        };
    return supported ? new BulkElementCopier(childVector, elementType) : null;
  }

  /**
   * Copies all elements to child slots {@code start..start+size-1}.
   *
   * @return false, having written nothing, if the array holds a null
   */
  boolean copy(ArrayData array, int start) {
    int size = array.size();
    if (elementsNullable && hasNull(array, size)) {
      return false;
    }
    while (vector.getValueCapacity() < start + size) {
      vector.reAlloc();
    }
    switch (elementType) {
      case FLOAT -> values(start, size, Float.BYTES).asFloatBuffer().put(array.toFloatArray());
      case DOUBLE -> values(start, size, Double.BYTES).asDoubleBuffer().put(array.toDoubleArray());
      case TINYINT -> values(start, size, Byte.BYTES).put(array.toByteArray());
      case INTEGER -> values(start, size, Integer.BYTES).asIntBuffer().put(array.toIntArray());
      default -> values(start, size, Long.BYTES).asLongBuffer().put(array.toLongArray());
    }
    markValid(vector.getValidityBuffer(), start, size);
    return true;
  }

  /** A little-endian (Arrow's byte order) view of the value slots, for one bulk copy. */
  private ByteBuffer values(int start, int size, int width) {
    return vector
        .getDataBuffer()
        .nioBuffer((long) start * width, size * width)
        .order(ByteOrder.LITTLE_ENDIAN);
  }

  /**
   * Sets validity bits {@code start..start+count-1}: single bits at the edges, whole bytes inside.
   */
  private static void markValid(ArrowBuf validity, int start, int count) {
    int index = start;
    int end = start + count;
    while (index < end && index % 8 != 0) {
      BitVectorHelper.setBit(validity, index++);
    }
    int wholeBytes = (end - index) / 8;
    if (wholeBytes > 0) {
      validity.setOne(index / 8, wholeBytes);
      index += wholeBytes * 8;
    }
    while (index < end) {
      BitVectorHelper.setBit(validity, index++);
    }
  }

  private static boolean hasNull(ArrayData array, int size) {
    for (int i = 0; i < size; i++) {
      if (array.isNullAt(i)) {
        return true;
      }
    }
    return false;
  }
}
