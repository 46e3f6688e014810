package dev.flinklance.sink.dynamic;

import dev.flinklance.concurrent.NativeWorkers;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.apache.flink.util.ExceptionUtils;

/**
 * Threads that work on several tables at once for the task thread (files finished, commits), which
 * waits for all of them. Never leaves work running behind the task thread's back: a batch whose
 * first failure ends it still waits for the rest, and closing waits for what runs, since a table
 * closed under a native call into it (a file being encoded, a commit) frees memory twice and aborts
 * the JVM.
 */
final class WorkerThreads {
  private final int threads;
  private final String name;
  private ExecutorService executor;

  WorkerThreads(int threads, String name) {
    this.threads = threads;
    this.name = name;
  }

  /**
   * Runs every task, then returns their results in order.
   *
   * @throws Exception the first task's failure, once all tasks ended
   */
  <T> List<T> runAll(List<Callable<T>> tasks) throws Exception {
    if (executor == null) {
      executor = NativeWorkers.pool(name, threads);
    }
    List<Future<T>> running = new ArrayList<>();
    for (Callable<T> task : tasks) {
      running.add(executor.submit(task));
    }
    List<T> results = new ArrayList<>();
    Throwable failure = null;
    boolean interrupted = false;
    for (Future<T> task : running) {
      while (true) {
        try {
          results.add(task.get());
          break;
        } catch (ExecutionException e) {
          failure = ExceptionUtils.firstOrSuppressed(e.getCause(), failure);
          break;
        } catch (InterruptedException e) {
          interrupted = true; // the tasks still run: wait for them all the same
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
      failure = ExceptionUtils.firstOrSuppressed(new InterruptedException(), failure);
    }
    if (failure != null) {
      ExceptionUtils.rethrowException(failure);
    }
    return results;
  }

  /**
   * Stops the threads once their work ended ({@link NativeWorkers#stop}).
   *
   * @return whether no work runs anymore: only then may the caller close the tables
   */
  boolean close() {
    return executor == null || NativeWorkers.stop(executor, NativeWorkers.STOP_WAIT);
  }
}
