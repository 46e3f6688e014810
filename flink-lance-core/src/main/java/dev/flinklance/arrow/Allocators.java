package dev.flinklance.arrow;

import java.time.Duration;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.annotation.Internal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Arrow allocators of operators: where the writers' batch memory comes from, and closing them.
 *
 * <p>Lance releases the buffers it imported (the batches of a fragment write, a scanner's batches)
 * on its own threads, sometimes after the call that used them has returned or failed; an allocator
 * closed in that window reports a leak, as an {@link IllegalStateException} from {@code close()}.
 * Thrown from an operator's close, that exception took the whole TaskManager down in our tests
 * (Flink treats it as fatal), with every other job on it.
 */
@Internal
public final class Allocators {
  private static final Logger LOG = LoggerFactory.getLogger(Allocators.class);
  private static final Duration RELEASE_WAIT = Duration.ofSeconds(5);
  private static final long POLL_MS = 10;

  private Allocators() {}

  /**
   * An allocator for a table's datasets, the batches their scans return and small writes (a table's
   * creation, a probe, a namespace client); the writers' batches come from {@link #forBatches}.
   * Closed with {@link #closeAtEnd}.
   */
  public static RootAllocator forTables() {
    return new RootAllocator();
  }

  /**
   * An allocator for the batches a writer fills and hands to Lance: memory from {@code malloc},
   * with freed batch buffers kept for the next batch while the memory in use plus the memory kept
   * stays within {@code limitBytes} (see {@link RecycledBlocks}).
   */
  public static RootAllocator forBatches(long limitBytes) {
    return new BatchAllocator(limitBytes);
  }

  /**
   * Closes {@code allocator} once whatever it still lends out is back, waiting a few seconds for
   * Lance's threads to let go; memory still held then is logged (naming {@code owner}) and left,
   * never thrown.
   */
  public static void closeAtEnd(BufferAllocator allocator, Object owner) {
    long deadline = System.nanoTime() + RELEASE_WAIT.toNanos();
    boolean interrupted = false;
    while (allocator.getAllocatedMemory() > 0 && System.nanoTime() < deadline) {
      try {
        Thread.sleep(POLL_MS);
      } catch (InterruptedException e) {
        interrupted = true; // a cancelled task still closes what it can
      }
    }
    try {
      allocator.close();
    } catch (IllegalStateException leak) {
      LOG.warn(
          "{}: Arrow memory still held {} after close, left to the JVM: {}",
          owner,
          RELEASE_WAIT,
          leak.getMessage());
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
