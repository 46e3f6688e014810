package dev.flinklance.arrow.write;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryStringData;

/**
 * Copies a Flink string's UTF-8 bytes into a {@link VarCharVector} straight from the memory segment
 * that holds them, as deserializers and SQL projections hand strings on: {@link
 * StringData#toBytes()} would first copy them into a new array (16% of the narrow-row profile). The
 * bytes, the offset and the validity bit go straight into the vector's memory, as Arrow's {@code
 * set} would lay them out but without its per-call bounds and reference-count checks (a quarter of
 * the writer's time on narrow rows went through it).
 */
final class StringCopier {
  private static final long OFFSET_WIDTH = BaseVariableWidthVector.OFFSET_WIDTH;

  private StringCopier() {}

  /** Sets slot {@code index}, which the vector's offsets and validity bits have room for. */
  static void set(VarCharVector vector, int index, StringData value) {
    if (value instanceof BinaryStringData binary) {
      MemorySegment[] segments = binary.getSegments(); // a Java String becomes bytes here
      int offset = binary.getOffset();
      int length = binary.getSizeInBytes();
      MemorySegment first = segments[0];
      if (!first.isOffHeap() && offset + length <= first.size()) {
        set(vector, index, first.getArray(), offset, length);
        return;
      }
    }
    vector.setSafe(index, value.toBytes());
  }

  private static void set(VarCharVector vector, int index, byte[] bytes, int from, int length) {
    long offsets = vector.getOffsetBuffer().memoryAddress();
    int lastSet = vector.getLastSet();
    if (index > lastSet + 1) {
      // the slots in between are nulls (or placeholders): empty, as Arrow's fillHoles makes them
      int end = MemoryUtil.getInt(offsets + (lastSet + 1) * OFFSET_WIDTH);
      for (int hole = lastSet + 1; hole < index; hole++) {
        MemoryUtil.putInt(offsets + (hole + 1) * OFFSET_WIDTH, end);
      }
    }
    // a slot at or before the last one set is a failed row's, rewritten in place
    int start = MemoryUtil.getInt(offsets + index * OFFSET_WIDTH);
    while (start + (long) length > vector.getDataBuffer().capacity()) {
      vector.reallocDataBuffer();
    }
    ArrowBuf data = vector.getDataBuffer();
    MemoryUtil.copyToMemory(bytes, from, data.memoryAddress() + start, length);
    MemoryUtil.putInt(offsets + (index + 1) * OFFSET_WIDTH, start + length);
    LeafWriter.setValid(vector.getValidityBuffer().memoryAddress(), index);
    vector.setLastSet(index);
  }
}
