package dev.flinklance.sink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.testing.Await;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestFragments;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import org.apache.flink.core.execution.JobClient;

/** A table deleted and recreated under a running job, for the tests of what the job then does. */
public final class TableReplacement {
  private TableReplacement() {}

  /**
   * Right after one of the job's commits to {@code table} (the next one is a checkpoint interval
   * away, none is in flight: a table replaced under a commit in flight cannot be told from the
   * commit's own view), moves the table to {@code movedTo} at once (one rename) and creates a new
   * one in its place.
   */
  public static void afterACommit(JobClient job, String table, Path movedTo) throws Exception {
    LanceTestTables.awaitSinkCommits(table, 2, Duration.ofMinutes(1));
    long version = LanceTestTables.latestVersion(table);
    Await.until(
        "the commit after version " + version,
        Duration.ofMinutes(1),
        job,
        () -> LanceTestTables.latestVersion(table) > version);
    Files.move(Path.of(table), movedTo);
    TestFragments.createTable(table);
  }

  /** The job's failure, which the replacement must cause. */
  public static Throwable failureOf(JobClient job) throws InterruptedException {
    try {
      job.getJobExecutionResult().get();
    } catch (ExecutionException e) {
      return e;
    }
    throw new AssertionError("the job did not fail");
  }

  /** Nothing of the job is in the new table. */
  public static void assertUntouched(String table) {
    assertThat(LanceTestTables.latestVersion(table))
        .as("nothing committed to the new table")
        .isEqualTo(1);
    assertThat(LanceTestTables.countRows(table)).isZero();
  }
}
