package dev.flinklance.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.e2e.cluster.ConnectorJars;
import dev.flinklance.e2e.cluster.FlinkClusterExtension;
import dev.flinklance.e2e.soak.SoakConfig;
import dev.flinklance.e2e.soak.SoakRun;
import dev.flinklance.testing.S3TestServer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The soak run ({@link SoakRun}) on a cluster of two TaskManagers: in CI its short variant (2.5
 * minutes of writing, one TaskManager killed), from {@code bin/soak} as long as asked ({@code
 * -Dsoak.minutes}), with the tables in S3TestServer's bucket with {@code -Dsoak.s3=true} ({@code
 * bin/soak --s3}), the connector in the cluster's {@code lib/} (or in the job jar, {@code
 * -Dsoak.connector-in=job-jar}). Every end check must pass.
 */
@Tag("slow")
class SoakITCase {
  @RegisterExtension
  static final FlinkClusterExtension CLUSTER =
      new FlinkClusterExtension(
          "soak",
          () ->
              SoakConfig.fromSystemProperties().connectorInLib()
                  ? List.of(ConnectorJars.connectorJar())
                  : List.of(),
          Map.of(
              // three slots each: the append job takes two, the upsert, copy and lookup jobs one
              "taskmanager.numberOfTaskSlots",
              "3",
              // the whole Java heap resident from the start: else the RSS grows for half an hour
              // by heap pages G1 touches for the first time (bounded by -Xmx, 360 MB), which the
              // RSS check would take for a leak
              "env.java.opts.taskmanager",
              "-XX:+AlwaysPreTouch"));

  @Test
  // bin/soak runs for an hour or more; the driver has its own deadlines
  @Timeout(value = 1, unit = TimeUnit.DAYS)
  void soak() throws Exception {
    CLUSTER.cluster().startTaskManager(); // the second one
    SoakConfig config = SoakConfig.fromSystemProperties();
    List<SoakRun.Check> checks;
    if (config.s3()) {
      try (S3TestServer s3 = new S3TestServer().start()) {
        s3.delayRequests(config.s3Delay());
        checks = new SoakRun(config, CLUSTER.cluster(), CLUSTER.dataDir(), s3, System.out).run();
      }
    } else {
      checks = new SoakRun(config, CLUSTER.cluster(), CLUSTER.dataDir(), null, System.out).run();
    }
    checks.forEach(System.out::println);
    assertThat(checks).allSatisfy(c -> assertThat(c.passed()).as(c.toString()).isTrue());
  }
}
