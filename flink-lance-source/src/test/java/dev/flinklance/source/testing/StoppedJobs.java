package dev.flinklance.source.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.errors.PermanentDatasetException;
import java.util.concurrent.ExecutionException;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.ExceptionUtils;

/** Jobs whose read of a table stops at a version: started (maybe restored), and how they end. */
public final class StoppedJobs {
  private StoppedJobs() {}

  /** An environment for one job at parallelism 1, restored from {@code savepoint} unless null. */
  public static StreamExecutionEnvironment environment(String savepoint) {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(1);
    if (savepoint != null) {
      env.configure(
          new Configuration().set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint),
          StoppedJobs.class.getClassLoader());
    }
    return env;
  }

  /** Waits for the job to fail; its failure. */
  public static Throwable failureOf(JobClient job) throws InterruptedException {
    try {
      job.getJobExecutionResult().get();
    } catch (ExecutionException e) {
      return e;
    }
    throw new AssertionError("the job did not fail");
  }

  /** The failure is a permanent one of the table with that message (a prefix of it). */
  public static void assertPermanent(Throwable failure, String table, String message) {
    assertThat(ExceptionUtils.stringifyException(failure))
        .contains("Lance table '" + table + "': " + message);
    assertThat(ExceptionUtils.findThrowable(failure, PermanentDatasetException.class)).isPresent();
  }
}
