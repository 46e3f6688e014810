package dev.flinklance.compactor;

import static dev.flinklance.compactor.testing.LineageTables.append;
import static dev.flinklance.compactor.testing.LineageTables.createStable;
import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.testing.Await;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestClusters;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.LongStream;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@link LanceCompactionJob} without {@code --once}: a pass every {@code --interval}. */
class ContinuousCompactionITCase {
  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withFlinksRestarts(2);

  @TempDir Path dir;

  @Test
  void compactsEveryInterval() throws Exception {
    String table = dir.resolve("t").toString();
    createStable(table);
    append(table, 0, 100, 4);
    CompactionJobArgs args =
        CompactionJobArgs.parse(new String[] {"--path", table, "--interval", "300 ms"});
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(1);
    LanceCompactionJob.build(env, args);
    JobClient job = env.executeAsync("continuous compaction");
    try {
      awaitOneFragment(table, job);
      append(table, 100, 100, 4);
      awaitOneFragment(table, job);
      append(table, 200, 100, 4);
      awaitOneFragment(table, job);
    } finally {
      job.cancel().get();
    }

    assertThat(LanceTestTables.readLongs(table, "id"))
        .containsExactlyInAnyOrderElementsOf(LongStream.range(0, 300).boxed().toList());
    assertThat(LanceTestTables.commits(table).stream().filter(c -> c.operation().equals("Rewrite")))
        .hasSizeGreaterThanOrEqualTo(3);
  }

  private static void awaitOneFragment(String table, JobClient job) throws InterruptedException {
    Await.until(
        "a pass to compact " + table + " into one fragment",
        Duration.ofSeconds(60),
        job,
        () -> LanceTestTables.fragmentCount(table) == 1);
  }
}
