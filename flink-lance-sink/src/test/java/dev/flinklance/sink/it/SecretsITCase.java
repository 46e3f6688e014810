package dev.flinklance.sink.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.access.ConditionalPutProbe;
import dev.flinklance.sink.LanceSink;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.LogCapture;
import dev.flinklance.testing.S3TestServer;
import dev.flinklance.testing.TestClusters;
import dev.flinklance.testing.TestRows;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.LongStream;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Credentials never show in what a job logs (every logger at INFO, exception chains included) or in
 * the exceptions it fails with: a distinctive secret key, also written into the table's URI, is
 * looked for in all of it.
 */
class SecretsITCase {
  private static final String ACCESS_KEY = "AKIAFLINKLANCETEST";
  private static final String SECRET = "flinkLanceSecret-6f3c1a9e";
  private static final String WRONG_SECRET = "flinkLanceWrongSecret-b84d27";

  @RegisterExtension static final S3TestServer S3 = new S3TestServer(ACCESS_KEY, SECRET);

  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @Test
  void aJobThatWritesLogsNoSecret() throws Exception {
    String table = S3.newUri("t");
    StreamExecutionEnvironment env = job(withCredentialsInUri(table), S3.storageOptions());
    assertThat(env.getExecutionPlan()).doesNotContain(SECRET);
    try (LogCapture logs = LogCapture.start()) {
      env.execute();

      assertThat(logs.text()).as("logs").contains(table.substring(5)).doesNotContain(SECRET);
    }
    assertThat(LanceTestTables.readLongs(table, S3.storageOptions(), "id"))
        .containsExactlyInAnyOrderElementsOf(LongStream.range(0, 10).boxed().toList());
  }

  @Test
  void aJobRejectedByTheStoreNamesNoSecret() {
    Map<String, String> wrongSecret = new HashMap<>(S3.storageOptions());
    wrongSecret.put("aws_secret_access_key", WRONG_SECRET);
    wrongSecret.put("client_max_retries", "0");

    assertFailsWithoutSecrets(job(withCredentialsInUri(S3.newUri("t")), wrongSecret), "403");
  }

  @Test
  void aJobStoppedByTheProbeNamesNoSecret() {
    String table = S3.newUri("t");
    S3.holdCreateOnlyPuts(
        ConditionalPutProbe.RACERS,
        request -> request.key().endsWith(S3TestServer.manifestSuffix(2)));

    assertFailsWithoutSecrets(
        job(withCredentialsInUri(table), S3.rawStorageOptions()),
        "Lance table 's3://" + ACCESS_KEY + ":******@" + table.substring(5) + "'");
  }

  private static void assertFailsWithoutSecrets(StreamExecutionEnvironment env, String expected) {
    try (LogCapture logs = LogCapture.start()) {
      assertThatThrownBy(env::execute)
          .satisfies(
              failure ->
                  assertThat(stackTrace(failure))
                      .contains(expected)
                      .doesNotContain(SECRET)
                      .doesNotContain(WRONG_SECRET));
      assertThat(logs.text()).doesNotContain(SECRET).doesNotContain(WRONG_SECRET);
    }
  }

  /** {@code s3://KEY:SECRET@bucket/...}: Lance ignores the credentials, messages must hide them. */
  private static String withCredentialsInUri(String table) {
    return table.replace("s3://", "s3://" + ACCESS_KEY + ":" + SECRET + "@");
  }

  private static StreamExecutionEnvironment job(String table, Map<String, String> options) {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(1);
    env.fromSource(TestRows.source(10), WatermarkStrategy.noWatermarks(), "ids")
        .sinkTo(
            LanceSink.forRowData(TestRows.ROW_TYPE).path(table).storageOptions(options).build());
    return env;
  }

  private static String stackTrace(Throwable failure) {
    StringWriter text = new StringWriter();
    failure.printStackTrace(new PrintWriter(text));
    return text.toString();
  }
}
