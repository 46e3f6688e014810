package dev.flinklance.sink.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.flinklance.access.ConditionalPutProbe;
import dev.flinklance.errors.LanceDatasetException;
import dev.flinklance.sink.LanceSink;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.LanceTestTables.Commit;
import dev.flinklance.testing.S3TestServer;
import dev.flinklance.testing.TestClusters;
import dev.flinklance.testing.TestRows;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The sink on the S3 test server beyond the failover cases: two jobs sharing a table, a store that
 * ignores create-only PUTs, and an endpoint that accepts connections but never answers.
 */
class S3SinkITCase {
  private static final int ROWS = FailoverCases.ROWS;

  @RegisterExtension static final S3TestServer S3 = new S3TestServer();

  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  /**
   * Both jobs find no table and create it; their creations are held until they meet at version 1,
   * then their commits interleave. The store's 412 makes Lance rebase the losers. A committer that
   * opens the table while the store lists the version without its manifest yet fails recoverably
   * and finds it after a restart (TableIdentity), so the jobs may restart.
   */
  @Test
  void twoJobsWritingOneTableAtOnceKeepEveryRow() throws Exception {
    String table = S3.newUri("shared");
    String firstManifest = key(table) + "/" + S3TestServer.manifestSuffix(1);
    long rejectedBefore = S3.preconditionFailures();
    S3.holdCreateOnlyPuts(2, request -> request.key().equals(firstManifest));

    JobClient first = job(table, 0).executeAsync();
    JobClient second = job(table, ROWS).executeAsync();
    first.getJobExecutionResult().get(3, TimeUnit.MINUTES);
    second.getJobExecutionResult().get(3, TimeUnit.MINUTES);

    assertThat(LanceTestTables.readLongs(table, S3.storageOptions(), "id"))
        .containsExactlyInAnyOrderElementsOf(LongStream.range(0, 2 * ROWS).boxed().toList());
    assertThat(
            LanceTestTables.sinkCommits(table, S3.storageOptions()).stream()
                .map(Commit::commitUser)
                .distinct())
        .as("both jobs committed, each as its own commit user")
        .hasSize(2);
    assertThat(S3.preconditionFailures() - rejectedBefore)
        .as("the store rejected the creation that lost the race")
        .isPositive();
  }

  /** Ids {@code offset .. offset + ROWS - 1}, over several checkpoints. */
  private static StreamExecutionEnvironment job(String table, long offset) {
    StreamExecutionEnvironment env =
        StreamExecutionEnvironment.getExecutionEnvironment(TestClusters.threeRestarts());
    env.setParallelism(2);
    env.enableCheckpointing(100);
    FailoverCases.source(env)
        .map(row -> TestRows.row(row.getLong(0) + offset))
        .returns(TestRows.TYPE_INFO)
        .sinkTo(sink(table, S3.storageOptions()));
    return env;
  }

  @Test
  void aStoreIgnoringCreateOnlyPutsFailsTheJobBeforeItWrites() {
    String table = S3.newUri("raw");
    String probes = key(table) + "/_flink_lance_probe/";
    S3.holdCreateOnlyPuts(
        ConditionalPutProbe.RACERS,
        request ->
            request.key().startsWith(probes)
                && request.key().endsWith(S3TestServer.manifestSuffix(2)));

    assertThat(lanceFailureOf(boundedJob(table, S3.rawStorageOptions())))
        .startsWith("Lance table '" + table + "': the object store ignores create-only")
        .contains("'object-store.conditional-put-check' = 'WARN'");
    assertThat(S3.keys(table)).as("nothing written").isEmpty();
  }

  /**
   * With Lance's own defaults this job would hang for over 20 minutes; the connector's timeouts
   * make it fail after about a minute (the bound here is only a sanity check).
   */
  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void anEndpointThatNeverAnswersFailsTheJobInAboutAMinute() {
    String table = S3.newUri("silent");
    long start = System.nanoTime();

    assertThat(lanceFailureOf(boundedJob(table, S3.silentStorageOptions())))
        .startsWith("Lance table '" + table + "'")
        .contains("error sending request");
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    System.out.printf("A job against an endpoint that never answers failed after %s%n", took);
    assertThat(took).isLessThan(Duration.ofMinutes(4));
  }

  /** Parallelism 1: the one writer fails; no task is left blocked in Lance to be cancelled. */
  private static StreamExecutionEnvironment boundedJob(String table, Map<String, String> options) {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(1);
    env.fromSource(TestRows.source(10), WatermarkStrategy.noWatermarks(), "ids")
        .sinkTo(sink(table, options));
    return env;
  }

  /** Runs the job, which must fail with a {@link LanceDatasetException}; returns its message. */
  private static String lanceFailureOf(StreamExecutionEnvironment env) {
    Throwable failure = catchThrowable(env::execute);
    return ExceptionUtils.findThrowable(failure, LanceDatasetException.class)
        .map(Throwable::getMessage)
        .orElseThrow(() -> new AssertionError("no LanceDatasetException in the failure", failure));
  }

  private static LanceSink<RowData> sink(String table, Map<String, String> options) {
    return LanceSink.forRowData(TestRows.ROW_TYPE).path(table).storageOptions(options).build();
  }

  /** The object key prefix of {@code table} in the bucket. */
  private static String key(String table) {
    return table.substring(S3.uri("").length());
  }
}
