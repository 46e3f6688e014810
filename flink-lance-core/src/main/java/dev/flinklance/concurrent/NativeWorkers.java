package dev.flinklance.concurrent;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.annotation.Internal;

/**
 * Threads that call into Lance's native code for an operator. A native call cannot be interrupted,
 * and closing a {@code Dataset} while another thread is inside a native call on it is a
 * use-after-free that kills the whole TaskManager JVM (measured on lance-core 7.0.0: SIGSEGV in a
 * compaction task when its job failed over). So an operator closes its Lance objects only once its
 * workers have stopped, and leaks them if a call does not end in time.
 */
@Internal
public final class NativeWorkers {
  /** How long a closing operator waits for a native call in flight to end. */
  public static final Duration STOP_WAIT = Duration.ofSeconds(60);

  private NativeWorkers() {}

  /** One daemon thread named {@code name}. */
  public static ExecutorService singleThread(String name) {
    return Executors.newSingleThreadExecutor(
        runnable -> {
          Thread thread = new Thread(runnable, name);
          thread.setDaemon(true);
          return thread;
        });
  }

  /** {@code threads} daemon threads named {@code namePrefix} and their number. */
  public static ExecutorService pool(String namePrefix, int threads) {
    AtomicInteger count = new AtomicInteger();
    return Executors.newFixedThreadPool(
        threads,
        runnable -> {
          Thread thread = new Thread(runnable, namePrefix + count.incrementAndGet());
          thread.setDaemon(true);
          return thread;
        });
  }

  /**
   * Interrupts the workers and waits up to {@code wait} for them to end, also when the calling
   * thread is interrupted (Flink interrupts a task it cancels, and cancelling is when this matters
   * most); the caller's interrupt status is restored.
   *
   * @return whether every worker ended: only then may the caller close what they used
   */
  public static boolean stop(ExecutorService workers, Duration wait) {
    workers.shutdownNow();
    long deadline = System.nanoTime() + wait.toNanos();
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return workers.awaitTermination(
              Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
