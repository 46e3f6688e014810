package dev.flinklance.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.e2e.cluster.Await;
import dev.flinklance.e2e.cluster.ConnectorJars;
import dev.flinklance.e2e.cluster.FlinkCluster;
import dev.flinklance.e2e.cluster.FlinkClusterExtension;
import dev.flinklance.e2e.cluster.FlinkRestClient;
import dev.flinklance.e2e.job.CheckpointedWriteJob;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestFragments;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A DataStream job with the connector inside its job jar (user-code class loader), uploaded and run
 * over REST on a standalone cluster of separate processes; the connector is NOT in the cluster's
 * lib/.
 */
@Timeout(value = 5, unit = java.util.concurrent.TimeUnit.MINUTES)
class JarUploadITCase {
  private static final Duration JOB_TIMEOUT = Duration.ofMinutes(3);
  private static final String COMPACTION_JOB = "dev.flinklance.compactor.LanceCompactionJob";

  @RegisterExtension
  static final FlinkClusterExtension CLUSTER =
      new FlinkClusterExtension("jar-upload", List::of, Map.of());

  private static String jarId;

  @BeforeAll
  static void uploadJobJar() throws IOException {
    Path jar =
        ConnectorJars.jobJar(
            CheckpointedWriteJob.class,
            FlinkClusterExtension.workDir().resolve("jobs/ids-job.jar"));
    jarId = rest().uploadJar(jar);
  }

  @Test
  void exactlyOnceWhenTheTaskManagerIsKilledMidRun() throws Exception {
    long rows = 24_000;
    String table = table("killed");
    String job = run(table, rows, 1_500, "e2e-kill");

    // let some checkpoints commit, then kill the TaskManager while the job still writes
    Await.until(
        "a committed checkpoint",
        JOB_TIMEOUT,
        () -> LanceTestTables.exists(table) && !LanceTestTables.sinkCommits(table).isEmpty(),
        () -> rest().jobStatus(job));
    long committedBeforeKill = LanceTestTables.countRows(table);
    assertThat(rest().jobStatus(job)).isEqualTo("RUNNING");
    cluster().killTaskManager();
    assertThat(committedBeforeKill).isPositive().isLessThan(rows);

    Await.until(
        "the job to notice the lost TaskManager",
        JOB_TIMEOUT,
        () -> !rest().exceptionHistory(job).isEmpty(),
        () -> rest().jobStatus(job));
    cluster().startTaskManager();
    awaitFinished(job);

    assertExactlyIds(table, rows);
    List<LanceTestTables.Commit> commits = LanceTestTables.sinkCommits(table);
    assertThat(commits).allSatisfy(c -> assertThat(c.commitUser()).isEqualTo("e2e-kill"));
    assertThat(commits.stream().map(LanceTestTables.Commit::checkpointId).toList())
        .as("checkpoint ids of the commits")
        .isSorted()
        .doesNotHaveDuplicates();
  }

  /**
   * lance-core loads its native library through the class loader of the job: a second job on the
   * same TaskManager has a new class loader and must load it again.
   */
  @Test
  void aSecondJobOnTheSameTaskManagerLoadsLanceAgain() throws Exception {
    List<String> taskManagers = List.of(cluster().taskManager().name());
    assertThat(rest().taskManagers()).isEqualTo(taskManagers);
    long pid = cluster().taskManager().pid();
    long unpackedBefore = unpackedNativeLibraries();

    for (String name : List.of("first", "second")) {
      String table = table("classloader-" + name);
      awaitFinished(run(table, 3_000, 100_000, "e2e-" + name));
      assertExactlyIds(table, 3_000);
    }

    assertThat(rest().taskManagers()).isEqualTo(taskManagers);
    assertThat(cluster().taskManager().pid()).isEqualTo(pid);
    // each job's class loader unpacked its own copy of the library (kept until the JVM exits)
    assertThat(unpackedNativeLibraries() - unpackedBefore).isEqualTo(2);
  }

  /** The standalone compaction job, run from the connector jar as it is, on a table of Lance's. */
  @Test
  void standaloneCompactionJobOverRest() throws Exception {
    String table = table("plain-lance");
    TestFragments.createTable(table);
    for (int f = 0; f < 20; f++) {
      LanceTestTables.appendFragments(
          table, TestFragments.write(table, LongStream.range(f * 50L, f * 50L + 50).toArray()));
    }
    assertThat(LanceTestTables.fragmentCount(table)).isEqualTo(20);

    String connectorJarId = rest().uploadJar(ConnectorJars.connectorJar());
    String job =
        rest().runJar(connectorJarId, COMPACTION_JOB, List.of("--path", table, "--once"), 1);
    awaitFinished(job);

    assertThat(LanceTestTables.fragmentCount(table)).isLessThan(20);
    assertThat(LanceTestTables.readLongs(table, "id").stream().sorted().toList())
        .isEqualTo(LongStream.range(0, 1000).boxed().toList());
  }

  private static String run(String table, long rows, long rowsPerSecond, String commitUser) {
    return rest()
        .runJar(
            jarId,
            CheckpointedWriteJob.class.getName(),
            List.of(table, Long.toString(rows), Long.toString(rowsPerSecond), commitUser),
            2);
  }

  private static void awaitFinished(String job) throws InterruptedException {
    Await.until(
        "job " + job + " to finish",
        JOB_TIMEOUT,
        () -> {
          String status = rest().jobStatus(job);
          if (status.equals("FAILED") || status.equals("CANCELED")) {
            throw new IllegalStateException(
                "job " + job + " is " + status + ": " + rest().exceptionHistory(job));
          }
          return status.equals("FINISHED");
        },
        () -> rest().jobStatus(job) + " " + rest().exceptionHistory(job));
  }

  private static void assertExactlyIds(String table, long rows) {
    List<List<Object>> read = LanceTestTables.readColumns(table, List.of("id", "payload"));
    assertThat(read.stream().map(r -> (Long) r.get(0)).sorted().toList())
        .as("ids in %s", table)
        .isEqualTo(LongStream.range(0, rows).boxed().toList());
    assertThat(read).allSatisfy(r -> assertThat(r.get(1).toString()).isEqualTo("row-" + r.get(0)));
  }

  private long unpackedNativeLibraries() throws IOException {
    try (Stream<Path> files = Files.list(cluster().taskManagerTmpDir())) {
      return files.filter(p -> p.getFileName().toString().startsWith("liblance_jni")).count();
    }
  }

  private static String table(String name) {
    return CLUSTER.dataDir().resolve(name + ".lance").toString();
  }

  private static FlinkCluster cluster() {
    return CLUSTER.cluster();
  }

  private static FlinkRestClient rest() {
    return CLUSTER.cluster().rest();
  }
}
