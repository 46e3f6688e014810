package dev.flinklance.testing;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.testutils.CommonTestUtils;

/**
 * The tests' one way to wait for something: polls a condition with Flink's {@link
 * CommonTestUtils#waitUtil} and fails with an {@link AssertionError} that names what was awaited,
 * never past a timeout (and, for a job, never past the job's end). No test sleeps to poll.
 */
public final class Await {
  private static final Duration POLL = Duration.ofMillis(20);

  private Await() {}

  /** A condition that may throw: an exception fails the wait at once, as its cause. */
  @FunctionalInterface
  public interface Condition {
    boolean holds() throws Exception;
  }

  /**
   * @throws AssertionError naming {@code what} if it does not hold within {@code timeout}
   */
  public static void until(String what, Duration timeout, Condition condition)
      throws InterruptedException {
    until(what, timeout, condition, () -> null);
  }

  /**
   * @param state what to report on timeout (the last state seen, say), or null for nothing
   * @throws AssertionError naming {@code what} and the state if it does not hold within {@code
   *     timeout}
   */
  public static void until(
      String what, Duration timeout, Condition condition, Supplier<String> state)
      throws InterruptedException {
    try {
      CommonTestUtils.waitUtil(() -> holds(condition, what), timeout, POLL, what);
    } catch (TimeoutException e) {
      String seen = state.get();
      throw new AssertionError(
          "timed out after "
              + timeout.toMillis()
              + " ms waiting for "
              + what
              + (seen == null ? "" : "; state: " + seen));
    } catch (ConditionFailed e) {
      throw new AssertionError("could not check " + what, e.getCause());
    }
  }

  /**
   * Waits while {@code job} runs.
   *
   * @throws AssertionError if the job ends (with its failure as the cause) or the time runs out
   *     before {@code condition} holds
   */
  public static void until(String what, Duration timeout, JobClient job, Condition condition)
      throws InterruptedException {
    AtomicBoolean held = new AtomicBoolean();
    until(
        what,
        timeout,
        () -> {
          held.set(condition.holds());
          return held.get() || status(job).isGloballyTerminalState();
        },
        () -> "job " + status(job));
    if (!held.get()) {
      Throwable failure = null;
      try {
        job.getJobExecutionResult().get(10, TimeUnit.SECONDS);
      } catch (Exception e) {
        failure = e;
      }
      throw new AssertionError("the job ended (" + status(job) + ") before " + what, failure);
    }
  }

  /**
   * Cancels a job and returns once it is {@link JobStatus#CANCELED}: {@code cancel()} alone returns
   * while tasks are still cancelling, and a committer among them may still land a commit.
   */
  public static void cancel(JobClient job, Duration timeout)
      throws InterruptedException, ExecutionException {
    job.cancel().get();
    until(
        "job " + job.getJobID() + " to be cancelled",
        timeout,
        () -> status(job).isGloballyTerminalState(),
        () -> "job " + status(job));
  }

  private static JobStatus status(JobClient job) {
    try {
      return job.getJobStatus().get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while asking for the job's status", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("cannot ask for the job's status", e);
    }
  }

  private static boolean holds(Condition condition, String what) {
    try {
      return condition.holds();
    } catch (Exception e) { // an Error (a failed assertion inside the condition) passes as it is
      throw new ConditionFailed(what, e);
    }
  }

  /** A checked exception of a condition, carried out of Flink's loop. */
  private static final class ConditionFailed extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ConditionFailed(String what, Exception cause) {
      super(what, cause);
    }
  }
}
