package dev.flinklance.arrow.write;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.util.LargeMemoryUtil;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.binary.BinaryArrayData;
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
  private final int width;
  private ArrowBuf viewed;
  private ByteBuffer view;

  private BulkElementCopier(FieldVector vector, LogicalType elementType) {
    this.vector = vector;
    this.elementType = elementType.getTypeRoot();
    this.elementsNullable = elementType.isNullable();
    this.width = ((BaseFixedWidthVector) vector).getTypeWidth();
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
    ByteBuffer slots = slots(start, size);
    if (!(array instanceof BinaryArrayData binary) || !copyBinary(binary, slots)) {
      switch (elementType) {
        case FLOAT -> slots.asFloatBuffer().put(array.toFloatArray());
        case DOUBLE -> slots.asDoubleBuffer().put(array.toDoubleArray());
        case TINYINT -> slots.put(array.toByteArray());
        case INTEGER -> slots.asIntBuffer().put(array.toIntArray());
        default -> slots.asLongBuffer().put(array.toLongArray());
      }
    }
    markValid(vector.getValidityBuffer(), start, size);
    return true;
  }

  /**
   * A little-endian (Arrow's byte order) view of the value slots, for one bulk copy. The view of
   * the whole data buffer is kept until the buffer changes: making one is a reflective call.
   */
  private ByteBuffer slots(int start, int size) {
    ArrowBuf data = vector.getDataBuffer();
    if (data != viewed) {
      view = data.nioBuffer(0, LargeMemoryUtil.checkedCastToInt(data.capacity()));
      viewed = data;
    }
    return view.slice(start * width, size * width).order(ByteOrder.LITTLE_ENDIAN);
  }

  /**
   * A SQL query's arrays come in Flink's binary format: their values, in the platform's byte order
   * (little-endian wherever Lance runs), are copied from the memory segment as they lie, without
   * first becoming a Java array. False if they span segments.
   */
  private static boolean copyBinary(BinaryArrayData array, ByteBuffer slots) {
    MemorySegment[] segments = array.getSegments();
    int offset = array.getOffset() + BinaryArrayData.calculateHeaderInBytes(array.size());
    int bytes = slots.remaining();
    if (segments.length != 1 || offset + bytes > segments[0].size()) {
      return false;
    }
    segments[0].get(offset, slots, bytes);
    return true;
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
