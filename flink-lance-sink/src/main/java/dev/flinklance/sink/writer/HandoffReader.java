package dev.flinklance.sink.writer;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * An Arrow stream of batches handed over one at a time by another thread. Lance's native writer
 * pulls from it; {@link #loadNextBatch()} waits until the producer offers the next batch or the
 * end.
 */
final class HandoffReader extends ArrowReader {
  private static final VectorSchemaRoot END = new VectorSchemaRoot(List.<FieldVector>of());
  private static final VectorSchemaRoot ABORT = new VectorSchemaRoot(List.<FieldVector>of());

  private final Schema schema;
  private final BufferAllocator allocator;
  private final SynchronousQueue<VectorSchemaRoot> handoff = new SynchronousQueue<>();
  private volatile boolean aborted;

  HandoffReader(BufferAllocator allocator, Schema schema) {
    super(allocator);
    this.allocator = allocator;
    this.schema = schema;
  }

  /** Moves {@code batch}'s buffers into a new batch owned by this stream's allocator. */
  VectorSchemaRoot adopt(VectorSchemaRoot batch) {
    VectorSchemaRoot moved = VectorSchemaRoot.create(schema, allocator);
    transfer(batch, moved);
    return moved;
  }

  boolean offer(VectorSchemaRoot batch, long timeoutMs) throws InterruptedException {
    return handoff.offer(batch, timeoutMs, TimeUnit.MILLISECONDS);
  }

  boolean offerEnd(long timeoutMs) throws InterruptedException {
    return handoff.offer(END, timeoutMs, TimeUnit.MILLISECONDS);
  }

  /** Makes the consumer fail instead of waiting for more. */
  void abort() {
    aborted = true;
    handoff.offer(ABORT);
  }

  @Override
  public boolean loadNextBatch() throws IOException {
    VectorSchemaRoot next;
    try {
      do {
        if (aborted) {
          throw new IOException("the Lance sink writer was closed before its checkpoint");
        }
        next = handoff.poll(100, TimeUnit.MILLISECONDS);
      } while (next == null);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while waiting for the next batch", e);
    }
    if (next == END) {
      return false;
    }
    if (next == ABORT) {
      throw new IOException("the Lance sink writer was closed before its checkpoint");
    }
    try (VectorSchemaRoot batch = next) {
      transfer(batch, getVectorSchemaRoot());
    }
    return true;
  }

  private static void transfer(VectorSchemaRoot from, VectorSchemaRoot to) {
    List<FieldVector> source = from.getFieldVectors();
    List<FieldVector> target = to.getFieldVectors();
    for (int i = 0; i < source.size(); i++) {
      source.get(i).makeTransferPair(target.get(i)).transfer();
    }
    to.setRowCount(from.getRowCount());
    from.setRowCount(0);
  }

  @Override
  public long bytesRead() {
    return 0;
  }

  @Override
  protected void closeReadSource() {}

  @Override
  protected Schema readSchema() {
    return schema;
  }
}
