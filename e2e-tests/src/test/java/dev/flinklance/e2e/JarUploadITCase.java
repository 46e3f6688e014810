package dev.flinklance.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.e2e.cluster.Await;
import dev.flinklance.e2e.cluster.ConnectorJars;
import dev.flinklance.e2e.cluster.FlinkCluster;
import dev.flinklance.e2e.cluster.FlinkClusterExtension;
import dev.flinklance.e2e.cluster.FlinkRestClient;
import dev.flinklance.e2e.job.CheckpointedWriteJob;
import dev.flinklance.e2e.job.UpsertChangelogJob;
import dev.flinklance.testing.Changelog;
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
import org.lance.JniLoader;

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
    // the test JVM's first table read would unpack and load Lance's native library while a job
    // runs on towards the moment the test means to kill its TaskManager: loaded here instead
    JniLoader.ensureLoaded();
    Path jar =
        ConnectorJars.jobJar(
            CheckpointedWriteJob.class,
            FlinkClusterExtension.workDir().resolve("jobs/ids-job.jar"),
            UpsertChangelogJob.CLASSES);
    jarId = rest().uploadJar(jar);
  }

  @Test
  void exactlyOnceWhenTheTaskManagerIsKilledMidRun() throws Exception {
    long rows = 24_000;
    String table = table("killed");
    String job = run(table, rows, 1_500, "e2e-kill");

    // let some checkpoints commit, then kill the TaskManager while the job still writes
    awaitSinkCommits(job, table, 1);
    killTaskManager(job);
    assertThat(LanceTestTables.countRows(table)).isPositive().isLessThan(rows);
    replaceKilledTaskManager(job);
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
   * A changelog upserted by key at parallelism 2 (several changes of most keys per checkpoint),
   * {@code kill -9} of the TaskManager after two commits, a new one: the table ends as the
   * changelog's reference model, row by row, no key twice, and every checkpoint landed once.
   *
   * <p>The restore replays the committables of the last completed checkpoint, which have (nearly
   * always) landed already: without the committer's stamp check they would land a second time, and
   * that shows as a repeated checkpoint id; an older checkpoint applied after a newer one puts back
   * rows the model no longer has; a commit that missed the rows it replaces leaves a key twice.
   */
  @Test
  void upsertsExactlyOnceWhenTheTaskManagerIsKilledMidRun() throws Exception {
    long changes = 40_000;
    long keys = 100;
    String table = table("upsert-killed");
    String job =
        rest()
            .runJar(
                jarId,
                UpsertChangelogJob.class.getName(),
                List.of(table, Long.toString(changes), Long.toString(keys), "500", "e2e-upsert"),
                2);

    awaitSinkCommits(job, table, 2);
    killTaskManager(job);
    int commitsBeforeKill = LanceTestTables.sinkCommits(table).size();
    replaceKilledTaskManager(job);
    awaitFinished(job);

    Map<Long, List<Object>> model = UpsertChangelogJob.changelog(changes, keys).model();
    assertThat(Changelog.tableRows(table, Map.of())).as("rows by key").isEqualTo(model);
    List<LanceTestTables.Commit> commits = LanceTestTables.sinkCommits(table);
    assertThat(commits.size()).as("commits after the kill").isGreaterThan(commitsBeforeKill);
    assertThat(commits)
        .allSatisfy(c -> assertThat(c.commitUser()).isEqualTo("e2e-upsert"))
        .extracting(LanceTestTables.Commit::operation)
        .containsOnly("Update");
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

  private static void awaitSinkCommits(String job, String table, int commits)
      throws InterruptedException {
    // polled over REST first: reading a table's commits back takes seconds on a loaded machine,
    // while the job runs on
    Await.until(
        commits + " completed checkpoints",
        JOB_TIMEOUT,
        () -> rest().completedCheckpoints(job) >= commits,
        () -> rest().jobStatus(job));
    Await.until(
        commits + " committed checkpoints",
        JOB_TIMEOUT,
        () ->
            LanceTestTables.hasVersion(table)
                && LanceTestTables.sinkCommits(table).size() >= commits,
        () -> rest().jobStatus(job));
  }

  /** {@code kill -9} of the TaskManager while the job runs: nothing commits until a new one. */
  private static void killTaskManager(String job) throws InterruptedException {
    assertThat(rest().jobStatus(job)).isEqualTo("RUNNING");
    cluster().killTaskManager();
  }

  private static void replaceKilledTaskManager(String job)
      throws IOException, InterruptedException {
    Await.until(
        "the job to notice the lost TaskManager",
        JOB_TIMEOUT,
        () -> !rest().exceptionHistory(job).isEmpty(),
        () -> rest().jobStatus(job));
    cluster().startTaskManager();
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
