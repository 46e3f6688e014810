package dev.flinklance.sink.bench;

import dev.flinklance.arrow.Allocators;
import dev.flinklance.arrow.write.ArrowBatchWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.flink.table.data.RowData;

/**
 * The sink's RowData to Arrow conversion alone, on the benchmark's thread: narrow rows through
 * {@link ArrowBatchWriter} into batches of the sink writer's size limit, each released as soon as
 * it is full (the sink hands it to Lance instead), without Flink or Lance. The rows come from a
 * ring of 1,024 made ahead, so generating them costs nothing; the result is rows per second of
 * thread CPU time.
 */
final class ConversionAlone {
  private static final int RING = 1024;

  private ConversionAlone() {}

  static double rate(long rows, long bufferBytes) {
    RowData[] ring = new RowData[RING];
    for (int i = 0; i < RING; i++) {
      ring[i] = NarrowRows.row(i);
    }
    long batchBytes = bufferBytes / 2; // as FragmentWriter: the other half is Lance's
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    try (BufferAllocator allocator = Allocators.forBatches(bufferBytes);
        ArrowBatchWriter batch =
            ArrowBatchWriter.create(NarrowRows.ROW_TYPE, NarrowRows.ARROW_SCHEMA, allocator)) {
      long start = threads.getCurrentThreadCpuTime();
      for (long i = 0; i < rows; i++) {
        if (batch.nextRowWouldOutgrow(allocator.getAllocatedMemory(), batchBytes)) {
          batch.seal();
          batch.reset(batchBytes, true);
        }
        batch.write(ring[(int) (i % RING)]);
      }
      batch.seal();
      return rows / ((threads.getCurrentThreadCpuTime() - start) / 1e9);
    }
  }
}
