package dev.flinklance.testing;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.JobClient;

/** Waits for a condition while a job runs: never longer than a timeout, never past the job. */
public final class JobAwait {
  private JobAwait() {}

  /**
   * @throws AssertionError if the job ends (with its failure as the cause) or the time runs out
   *     before {@code condition} holds
   */
  public static void until(String what, Duration timeout, JobClient job, BooleanSupplier condition)
      throws InterruptedException, ExecutionException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      JobStatus status = job.getJobStatus().get();
      if (status.isGloballyTerminalState()) {
        Throwable failure = null;
        try {
          job.getJobExecutionResult().get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
          failure = e;
        }
        throw new AssertionError("the job ended (" + status + ") before " + what, failure);
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no " + what + " within " + timeout + " (job " + status + ")");
      }
      Thread.sleep(20);
    }
  }

  /**
   * Cancels a job and returns once it is {@link JobStatus#CANCELED}: {@code cancel()} alone returns
   * while tasks are still cancelling, and a committer among them may still land a commit.
   */
  public static void cancel(JobClient job, Duration timeout)
      throws InterruptedException, ExecutionException {
    job.cancel().get();
    long deadline = System.nanoTime() + timeout.toNanos();
    JobStatus status;
    while (!(status = job.getJobStatus().get()).isGloballyTerminalState()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "the job was not cancelled within " + timeout + " (" + status + ")");
      }
      Thread.sleep(20);
    }
  }
}
