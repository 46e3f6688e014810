package dev.flinklance.sink.writer;

import dev.flinklance.access.TableRef;
import dev.flinklance.errors.LanceDatasetException;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.FragmentMetadata;

/**
 * One Lance fragment write fed batch by batch: everything a writer sends between two checkpoints
 * goes into the same fragment file (Lance rolls to another file at {@code maxRowsPerFile} or {@code
 * maxBytesPerFile}). Lance pulls the batches through an Arrow C stream on a background thread while
 * the task thread fills the next batch; a hand-off without a queue keeps at most one batch in
 * flight, so memory stays bounded however large the file grows.
 */
final class FragmentStream {
  private static final long POLL_MS = 100;
  private static final long ABORT_WAIT_MS = 30_000;

  private final TableRef table;
  private final HandoffReader reader;
  private final ExecutorService thread;
  private final Future<List<FragmentMetadata>> written;
  private long rows;

  /**
   * Starts the fragment write.
   *
   * @param allocator owns the batches once sent; a child of the writer's allocator
   */
  FragmentStream(
      TableRef table,
      BufferAllocator allocator,
      Schema schema,
      FileLayout layout,
      String threadName) {
    this.table = table;
    this.reader = new HandoffReader(allocator, schema);
    this.thread =
        Executors.newSingleThreadExecutor(
            task -> {
              Thread t = new Thread(task, threadName);
              t.setDaemon(true);
              return t;
            });
    this.written = thread.submit(() -> write(table, allocator, reader, layout));
  }

  private static List<FragmentMetadata> write(
      TableRef table, BufferAllocator allocator, HandoffReader reader, FileLayout layout)
      throws Exception {
    try (ArrowArrayStream stream = ArrowArrayStream.allocateNew(allocator)) {
      Data.exportArrayStream(allocator, reader, stream);
      return table
          .writeFragment()
          .allocator(allocator)
          .data(stream)
          .dataStorageVersion(layout.dataStorageVersion())
          .maxRowsPerFile(layout.maxRowsPerFile())
          .maxBytesPerFile(layout.maxBytesPerFile())
          .execute();
    }
  }

  /**
   * Hands the batch's buffers to the fragment write; {@code batch} is left empty. Blocks while
   * Lance is still busy with the previous batch.
   */
  void send(VectorSchemaRoot batch) throws InterruptedException {
    rows += batch.getRowCount();
    VectorSchemaRoot moved = reader.adopt(batch);
    while (!reader.offer(moved, POLL_MS)) {
      if (written.isDone()) {
        moved.close();
        awaitResult(); // throws the write's failure, if that is why it ended
        throw new LanceDatasetException(
            table.uri(), "the fragment write ended before its input did", null);
      }
    }
  }

  /** Ends the stream and returns the fragments written, after Lance has finished the files. */
  List<FragmentMetadata> finish() throws InterruptedException {
    while (!reader.offerEnd(POLL_MS)) {
      if (written.isDone()) {
        break;
      }
    }
    try {
      return awaitResult();
    } finally {
      thread.shutdown();
    }
  }

  long rows() {
    return rows;
  }

  /**
   * Stops the write without producing fragments (job cancelled or failed) and waits until Lance has
   * let go of the stream, even on a thread Flink already interrupted to cancel it, so that the
   * writer's allocator can close without a leak (see {@code Allocators.closeAtEnd} for what is
   * still held after the wait).
   */
  void abort() {
    reader.abort();
    thread.shutdownNow();
    boolean interrupted = false;
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ABORT_WAIT_MS);
    try {
      while (true) {
        try {
          written.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
          return;
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (ExecutionException | TimeoutException e) {
          return; // a failed write's files are orphans no commit references
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private List<FragmentMetadata> awaitResult() throws InterruptedException {
    try {
      return written.get();
    } catch (ExecutionException e) {
      throw failure(e.getCause());
    }
  }

  private LanceDatasetException failure(Throwable cause) {
    if (cause instanceof LanceDatasetException known) {
      return known;
    }
    return LanceDatasetException.wrap(
        table.uri(), "cannot write a fragment file (" + rows + " rows sent)", cause);
  }

  /** How fragment files are laid out: the table's format, and where a file rolls. */
  record FileLayout(String dataStorageVersion, int maxRowsPerFile, long maxBytesPerFile) {}
}
