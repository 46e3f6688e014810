package dev.flinklance.sink.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryStringData;

/**
 * The floor of {@link ConversionAlone}: the same rows into Arrow by code written for exactly this
 * schema, the way a conversion generated per schema would read: no dispatch per value, buffer
 * addresses in locals, one batch allocated once and refilled (so no growth and no fresh pages), no
 * bounds checks. It knows its strings are binary UTF-8 on the heap and under 16 bytes, so it is a
 * limit to compare with, not a writer. The result is rows per second of thread CPU time.
 */
final class HandwrittenConversion {
  private static final int RING = 1024;
  private static final int BATCH_ROWS = 1 << 20;

  private HandwrittenConversion() {}

  static double rate(long rows) {
    RowData[] ring = new RowData[RING];
    for (int i = 0; i < RING; i++) {
      ring[i] = NarrowRows.row(i);
    }
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = VectorSchemaRoot.create(NarrowRows.ARROW_SCHEMA, allocator)) {
      for (FieldVector vector : root.getFieldVectors()) {
        vector.setInitialCapacity(BATCH_ROWS);
      }
      VarCharVector actions = (VarCharVector) root.getVector("action");
      actions.setInitialCapacity(BATCH_ROWS, 16);
      root.allocateNew();
      long ids = root.getVector("id").getDataBuffer().memoryAddress();
      long timestamps = root.getVector("ts").getDataBuffer().memoryAddress();
      long timestampsValid = root.getVector("ts").getValidityBuffer().memoryAddress();
      long users = root.getVector("user_id").getDataBuffer().memoryAddress();
      long usersValid = root.getVector("user_id").getValidityBuffer().memoryAddress();
      long actionOffsets = actions.getOffsetBuffer().memoryAddress();
      long actionBytes = actions.getDataBuffer().memoryAddress();
      long actionsValid = actions.getValidityBuffer().memoryAddress();
      long values = root.getVector("value").getDataBuffer().memoryAddress();
      long valuesValid = root.getVector("value").getValidityBuffer().memoryAddress();
      long start = threads.getCurrentThreadCpuTime();
      int end = 0;
      for (long i = 0; i < rows; i++) {
        int index = (int) (i & (BATCH_ROWS - 1));
        if (index == 0) {
          end = 0;
        }
        RowData row = ring[(int) (i % RING)];
        MemoryUtil.putLong(ids + index * 8L, row.getLong(0));
        if (!row.isNullAt(1)) {
          MemoryUtil.putLong(timestamps + index * 8L, row.getTimestamp(1, 3).getMillisecond());
          setBit(timestampsValid, index);
        }
        if (!row.isNullAt(2)) {
          MemoryUtil.putInt(users + index * 4L, row.getInt(2));
          setBit(usersValid, index);
        }
        if (!row.isNullAt(3)) {
          BinaryStringData action = (BinaryStringData) row.getString(3);
          int length = action.getSizeInBytes();
          MemoryUtil.copyToMemory(
              action.getSegments()[0].getArray(), action.getOffset(), actionBytes + end, length);
          end += length;
          setBit(actionsValid, index);
        }
        MemoryUtil.putInt(actionOffsets + (index + 1) * 4L, end);
        if (!row.isNullAt(4)) {
          MemoryUtil.putLong(values + index * 8L, Double.doubleToRawLongBits(row.getDouble(4)));
          setBit(valuesValid, index);
        }
      }
      return rows / ((threads.getCurrentThreadCpuTime() - start) / 1e9);
    }
  }

  private static void setBit(long bits, int index) {
    long address = bits + (index >>> 3);
    MemoryUtil.putByte(address, (byte) (MemoryUtil.getByte(address) | (1 << (index & 7))));
  }
}
