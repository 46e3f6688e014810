package dev.flinklance.sink.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.testing.Await;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.S3TestServer;
import dev.flinklance.testing.TestClusters;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The exactly-once {@link FailoverCases} on {@code s3://}, against the S3 test server. */
class S3ExactlyOnceITCase extends FailoverCases {

  @RegisterExtension static final S3TestServer S3 = new S3TestServer();

  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  /**
   * A burst of 503 answers on the commit path, more than Lance's own request retries absorb: the
   * committer's attempts (and, should they run out, Flink's restarts) get the job through, every
   * row once. Transient errors keep their retries; only permanent ones stop a job at once.
   */
  @Test
  void aBurstOfTransientStoreErrorsIsSurvivedExactlyOnce() throws Exception {
    String table = newTable();
    StreamExecutionEnvironment env = restartingEnv();
    source(env).sinkTo(sink(table).build());
    JobClient job = env.executeAsync();
    Await.until("a sink commit", Duration.ofMinutes(2), job, () -> hasSinkCommits(table));
    S3.failNext(
        40, request -> request.method().equals("PUT") && request.key().contains("/_versions/"));
    job.getJobExecutionResult().get(5, TimeUnit.MINUTES);

    assertThat(S3.pendingFailures()).as("every injected failure was met").isZero();
    assertExactlyOnce(table);
  }

  private boolean hasSinkCommits(String table) {
    try {
      return !LanceTestTables.sinkCommits(table, storageOptions()).isEmpty();
    } catch (RuntimeException noTableYet) {
      return false;
    }
  }

  @Override
  String newTable() {
    return S3.newUri("t");
  }

  @Override
  Map<String, String> storageOptions() {
    return S3.storageOptions();
  }

  @Override
  Set<String> unreferencedDataFiles(String table) {
    Set<String> referenced = LanceTestTables.referencedDataFiles(table, storageOptions());
    return S3.keys(table + "/data").stream()
        .map(key -> key.substring(key.lastIndexOf('/') + 1))
        .filter(name -> !referenced.contains(name))
        .collect(Collectors.toSet());
  }
}
