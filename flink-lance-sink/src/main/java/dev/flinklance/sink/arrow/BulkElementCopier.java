package dev.flinklance.sink.arrow;

import org.apache.arrow.vector.BigIntVector;
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
 * vector in one go: one capacity check and a tight typed loop instead of a virtual call chain per
 * element. Used by the list and vector writers; they fall back to element-wise writing when an
 * array holds nulls.
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
      case FLOAT -> {
        Float4Vector target = (Float4Vector) vector;
        float[] values = array.toFloatArray();
        for (int i = 0; i < size; i++) {
          target.set(start + i, values[i]);
        }
      }
      case DOUBLE -> {
        Float8Vector target = (Float8Vector) vector;
        double[] values = array.toDoubleArray();
        for (int i = 0; i < size; i++) {
          target.set(start + i, values[i]);
        }
      }
      case TINYINT -> {
        TinyIntVector target = (TinyIntVector) vector;
        byte[] values = array.toByteArray();
        for (int i = 0; i < size; i++) {
          target.set(start + i, values[i]);
        }
      }
      case INTEGER -> {
        IntVector target = (IntVector) vector;
        int[] values = array.toIntArray();
        for (int i = 0; i < size; i++) {
          target.set(start + i, values[i]);
        }
      }
      default -> {
        BigIntVector target = (BigIntVector) vector;
        long[] values = array.toLongArray();
        for (int i = 0; i < size; i++) {
          target.set(start + i, values[i]);
        }
      }
    }
    return true;
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
