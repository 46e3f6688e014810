package dev.flinklance.compactor.operator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.compactor.CompactionConfig;
import dev.flinklance.compactor.plan.PlanRef;
import dev.flinklance.compactor.plan.RewriteTask;
import dev.flinklance.compactor.rewrite.OutcomeFiles;
import dev.flinklance.compactor.rewrite.RewriteOutcome;
import dev.flinklance.compactor.testing.LineageTables;
import dev.flinklance.testing.LanceTestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.streaming.api.datastream.AsyncDataStream;
import org.apache.flink.streaming.api.operators.async.AsyncWaitOperatorFactory;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.FragmentMetadata;
import org.lance.compaction.Compaction;
import org.lance.compaction.CompactionTask;
import org.lance.compaction.RewriteResult;

/**
 * The rewrite worker in Flink's async operator, as the compaction pipeline runs it, on Flink's
 * operator test harness and a real stable-row-id table: each task is rewritten at its plan's
 * version into new fragment files (nothing committed), and a rewrite that fails or times out
 * becomes a failed outcome while the other tasks go on.
 */
class RewriteFunctionTest {
  private static final long TIMEOUT_MILLIS = 60_000;

  @TempDir Path dir;
  private String table;
  private CompactionConfig config;

  @BeforeEach
  void twoRunsOfSmallFragments() {
    table = dir.resolve("t").toString();
    config = Plans.twoRunsOfSmallFragments(table);
  }

  @Test
  void rewritesEachTaskAtItsPlansVersionWithoutCommitting() throws Exception {
    List<RewriteTask> tasks = Plans.plan(config);
    assertThat(tasks).hasSize(2);
    LineageTables.append(table, 400, 50, 1); // the table moves on after the plan
    long version = LanceTestTables.latestVersion(table);
    Map<Long, List<Object>> before = LineageTables.rowsByRowId(table);

    List<RewriteOutcome> outcomes = run(new RewriteFunction(config.dataset()), tasks);

    assertThat(outcomes).extracting(RewriteOutcome::index).containsExactly(0, 1);
    for (RewriteOutcome outcome : outcomes) {
      RewriteTask task = tasks.get(outcome.index());
      assertThat(outcome.plan()).isEqualTo(task.plan());
      assertThat(outcome.failure()).isNull();
      RewriteResult result = outcome.result();
      assertThat(result.getReadVersion()).isEqualTo(task.plan().readVersion());
      assertThat(ids(result.getOriginalFragments())).isEqualTo(ids(task.task()));
      assertThat(result.getNewFragments())
          .singleElement()
          .extracting(f -> f.getNumRows())
          .isEqualTo(100L);
    }
    assertThat(LanceTestTables.latestVersion(table)).as("nothing committed").isEqualTo(version);

    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open(table, allocator)) {
      Compaction.commitCompaction(
          dataset,
          outcomes.stream().map(RewriteOutcome::result).toList(),
          tasks.get(0).task().getCompactionOptions());
    }
    assertThat(LanceTestTables.fragmentCount(table)).isEqualTo(4);
    assertThat(LineageTables.rowsByRowId(table)).isEqualTo(before);
  }

  /** A rewrite of 300 fragments is over 16 KiB: its outcome names the file that holds it. */
  @Test
  void aLargeRewriteTravelsAsTheNameOfItsFile() throws Exception {
    String big = dir.resolve("big").toString();
    LineageTables.createStable(big);
    LineageTables.append(big, 0, 300, 300);
    CompactionConfig bigConfig = Plans.config(big);
    List<RewriteTask> tasks = Plans.plan(bigConfig);

    RewriteOutcome outcome =
        run(new RewriteFunction(bigConfig.dataset()), tasks).stream().findFirst().orElseThrow();

    assertThat(outcome.result()).isNull();
    assertThat(outcome.resultFile()).startsWith("_compaction/").endsWith(".rewrite");
    try (OutcomeFiles files = new OutcomeFiles(bigConfig.dataset())) {
      RewriteResult result = files.result(outcome).orElseThrow();
      assertThat(ids(result.getOriginalFragments())).isEqualTo(ids(tasks.get(0).task()));
      assertThat(result.getNewFragments())
          .singleElement()
          .extracting(f -> f.getNumRows())
          .isEqualTo(300L);
    }
  }

  @Test
  void aRewriteThatFailsIsAFailedOutcomeAndTheOtherTasksAreRewritten() throws Exception {
    List<RewriteTask> tasks = Plans.plan(config);
    String lost =
        tasks.get(0).task().getTaskData().getFragments().get(0).getFiles().get(0).getPath();
    Files.delete(Path.of(table, "data", lost));

    List<RewriteOutcome> outcomes = run(new RewriteFunction(config.dataset()), tasks);

    assertThat(outcomes).extracting(RewriteOutcome::index).containsExactly(0, 1);
    assertThat(outcomes.get(0).result()).isNull();
    assertThat(outcomes.get(0).failure()).contains(lost);
    assertThat(outcomes.get(1).failure()).isNull();
    assertThat(ids(outcomes.get(1).result().getOriginalFragments()))
        .isEqualTo(ids(tasks.get(1).task()));
  }

  @Test
  void theMarkerOfAnEmptyPlanIsPassedOn() throws Exception {
    PlanRef empty = new PlanRef("empty-1", 6, 0, 5);

    List<RewriteOutcome> outcomes =
        run(new RewriteFunction(config.dataset()), List.of(RewriteTask.emptyPlan(empty)));

    assertThat(outcomes).containsExactly(RewriteOutcome.emptyPlan(empty));
  }

  /** {@code compaction.timeout} is the async operator's timeout. */
  @Test
  void aRewriteThatTimesOutIsAFailedOutcome() throws Exception {
    RewriteTask task = Plans.plan(config).get(0);
    HeldRewrite held = new HeldRewrite(config);
    try (var workers = workers(held)) {
      workers.processElement(new StreamRecord<>(task));
      assertThat(held.started.await(60, TimeUnit.SECONDS)).as("the rewrite started").isTrue();
      workers.setProcessingTime(TIMEOUT_MILLIS); // the harness runs the timeout timer at once
      workers.endInput();

      assertThat(workers.extractOutputValues())
          .containsExactly(RewriteOutcome.failed(task.plan(), 0, "timed out (compaction.timeout)"));
    } finally {
      held.release.countDown();
    }
  }

  private static OneInputStreamOperatorTestHarness<RewriteTask, RewriteOutcome> workers(
      RewriteFunction rewrite) throws Exception {
    var harness =
        new OneInputStreamOperatorTestHarness<>(
            new AsyncWaitOperatorFactory<>(
                rewrite, TIMEOUT_MILLIS, 16, AsyncDataStream.OutputMode.UNORDERED),
            RewriteTask.typeInfo().createSerializer(new SerializerConfigImpl()));
    harness.setProcessingTime(0);
    harness.open();
    return harness;
  }

  /** The outcomes of the tasks, by task. */
  private static List<RewriteOutcome> run(RewriteFunction rewrite, List<RewriteTask> tasks)
      throws Exception {
    try (var workers = workers(rewrite)) {
      for (RewriteTask task : tasks) {
        workers.processElement(new StreamRecord<>(task));
      }
      workers.endInput(); // waits for every task in flight
      return workers.extractOutputValues().stream()
          .sorted(Comparator.comparingInt(RewriteOutcome::index))
          .toList();
    }
  }

  private static List<Integer> ids(CompactionTask task) {
    return ids(task.getTaskData().getFragments());
  }

  private static List<Integer> ids(List<FragmentMetadata> fragments) {
    return fragments.stream().map(FragmentMetadata::getId).sorted().toList();
  }

  /** A rewrite that starts, then waits for the test to let it go on. */
  private static final class HeldRewrite extends RewriteFunction {
    private static final long serialVersionUID = 1L;
    private final transient CountDownLatch started = new CountDownLatch(1);
    private final transient CountDownLatch release = new CountDownLatch(1);

    HeldRewrite(CompactionConfig config) {
      super(config.dataset());
    }

    @Override
    protected RewriteResult execute(CompactionTask task, Dataset dataset) {
      started.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return super.execute(task, dataset);
    }
  }
}
