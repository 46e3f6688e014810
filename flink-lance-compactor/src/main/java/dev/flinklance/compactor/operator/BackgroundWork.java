package dev.flinklance.compactor.operator;

import dev.flinklance.concurrent.NativeWorkers;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.util.function.ThrowingConsumer;

/**
 * Runs an operator's Lance work on one background thread and hands each result back to the
 * operator's mailbox thread. Lance calls can take seconds (object stores, large manifests); run in
 * the task thread they would hold back checkpoint barriers, and so the sink's commits.
 */
@Internal
public final class BackgroundWork {
  private final ExecutorService executor;
  private final MailboxExecutor mailbox;
  private int running;

  public BackgroundWork(String threadName, MailboxExecutor mailbox) {
    this.mailbox = mailbox;
    this.executor = NativeWorkers.singleThread(threadName);
  }

  /**
   * Runs {@code work} in the background, then {@code onSuccess} or {@code onFailure} in the mailbox
   * thread. Call from the mailbox thread.
   */
  public <T> void submit(
      String description,
      Callable<T> work,
      ThrowingConsumer<T, Exception> onSuccess,
      ThrowingConsumer<Exception, Exception> onFailure) {
    running++;
    executor.execute(
        () -> {
          try {
            T result = work.call();
            mailbox.execute(
                () -> {
                  running--;
                  onSuccess.accept(result);
                },
                description);
          } catch (Exception e) {
            mailbox.execute(
                () -> {
                  running--;
                  onFailure.accept(e);
                },
                description + " (failed)");
          }
        });
  }

  public boolean isIdle() {
    return running == 0;
  }

  /** Processes mail until all submitted work is done (end of input). Mailbox thread only. */
  public void awaitIdle() throws InterruptedException {
    while (running > 0) {
      mailbox.yield();
    }
  }

  /**
   * Stops the background thread.
   *
   * @return whether it stopped: only then may the operator close the Lance objects it used
   */
  public boolean stop() {
    return NativeWorkers.stop(executor, NativeWorkers.STOP_WAIT);
  }
}
