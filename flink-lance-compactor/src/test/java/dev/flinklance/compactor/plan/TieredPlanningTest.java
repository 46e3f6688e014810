package dev.flinklance.compactor.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.compactor.CompactionConfig;
import dev.flinklance.compactor.testing.LineageTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.compaction.CompactionTask;

/**
 * An upsert table that stays under the target size, as the 60-minute soak's did: one big fragment
 * and the small ones each checkpoint appends, the sink deleting from all of them. In a job the
 * small fragments are merged without the big one; a plan that a delete preempted is not planned
 * again at once, and the next rewrites fewer adjacent fragments per task.
 */
class TieredPlanningTest {
  private static final long NOW = 1_000_000;

  @TempDir Path dir;
  private String table;
  private Planning planning;

  @BeforeEach
  void oneBigFragmentAndTenSmallOnes() {
    table = dir.resolve("t").toString();
    LineageTables.createStable(table);
    LineageTables.append(table, 0, 5_000, 1);
    for (long first = 5_000; first < 5_500; first += 50) {
      LineageTables.append(table, first, 50, 1);
    }
    planning = planning(table);
  }

  /** A 50,000-row target, and a plan once 4 fragments can be rewritten. */
  private static Planning planning(String uri) {
    Configuration conf = new Configuration();
    conf.setString("path", uri);
    conf.setString("compaction.target-rows-per-fragment", "50000");
    conf.setString("compaction.trigger.small-fragments", "4");
    return new Planning(CompactionConfig.from(conf));
  }

  @Test
  void aJobMergesTheSmallFragmentsWithoutTheBigOneAPassRewritesAll() {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open(table, allocator)) {
      Planning.Evaluation inJob = planning.evaluate(dataset, List.of(), false, 1, 0, NOW);
      assertThat(fragmentIds(inJob.planned()))
          .containsExactly(List.of(1, 2, 3, 4, 5, 6, 7, 8, 9, 10));

      Planning.Evaluation pass = planning.evaluate(dataset, List.of(), true, 1, 0, NOW);
      assertThat(fragmentIds(pass.planned()))
          .containsExactly(List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10));
    }
  }

  /** The trigger counts the fragments a plan would rewrite: the big one left out is not one. */
  @Test
  void theBigFragmentLeftOutDoesNotCountTowardsTheTrigger() {
    String small = dir.resolve("small").toString();
    LineageTables.createStable(small);
    LineageTables.append(small, 0, 5_000, 1);
    LineageTables.append(small, 5_000, 150, 3);
    Planning smallPlanning = planning(small);
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open(small, allocator)) {
      Planning.Evaluation inJob = smallPlanning.evaluate(dataset, List.of(), false, 1, 0, NOW);
      assertThat(inJob.candidates()).isEqualTo(3);
      assertThat(inJob.fired()).isFalse();
    }
    LineageTables.append(small, 5_150, 50, 1);
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open(small, allocator)) {
      Planning.Evaluation inJob = smallPlanning.evaluate(dataset, List.of(), false, 1, 0, NOW);
      assertThat(inJob.candidates()).isEqualTo(4);
      assertThat(fragmentIds(inJob.planned())).containsExactly(List.of(1, 2, 3, 4));
    }
  }

  @Test
  void theBigFragmentJoinsOnceItIsDeletionHeavy() {
    LineageTables.delete(table, "id < 600");
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open(table, allocator)) {
      Planning.Evaluation inJob = planning.evaluate(dataset, List.of(), false, 1, 0, NOW);
      assertThat(fragmentIds(inJob.planned()))
          .containsExactly(List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10));
    }
  }

  @Test
  void aPreemptedPlanBacksOffThenRewritesShorterRuns() {
    List<InFlightPlan> inFlight = new ArrayList<>();
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open(table, allocator)) {
      inFlight.add(planning.evaluate(dataset, List.of(), false, 1, 0, NOW).planned().inFlight());
    }
    LineageTables.delete(table, "id = 5001"); // the sink's delete, in the plan's fragment 1

    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open(table, allocator)) {
      Planning.Evaluation preempted = planning.evaluate(dataset, inFlight, false, 1, 0, NOW + 10);
      assertThat(preempted.settledPlans()).containsExactly(inFlight.get(0).planId());
      assertThat(preempted.fired()).as("backing off").isFalse();
      assertThat(preempted.planned()).isNull();

      Planning.Evaluation stillWaiting =
          planning.evaluate(dataset, List.of(), false, 5, 0, NOW + 10 + 199);
      assertThat(stillWaiting.planned()).isNull();

      Planning.Evaluation asked = planning.evaluate(dataset, List.of(), true, 5, 0, NOW + 20);
      assertThat(fragmentIds(asked.planned()))
          .as("a pass asked for does not wait, but its runs are shorter too")
          .containsExactly(List.of(0, 1, 2, 3, 4, 5, 6, 7), List.of(8, 9, 10));

      Planning.Evaluation after = planning.evaluate(dataset, List.of(), false, 5, 0, NOW + 210);
      assertThat(fragmentIds(after.planned()))
          .containsExactly(List.of(1, 2, 3, 4, 5, 6, 7, 8), List.of(9, 10));
    }
  }

  @Test
  void theBackoffGrowsWithPreemptionsInARowAndACommitEndsIt() {
    PreemptionBackoff backoff = new PreemptionBackoff();
    backoff.preempted(0);
    backoff.preempted(0);
    assertThat(backoff.waiting(399)).isTrue();
    assertThat(backoff.waiting(400)).isFalse();
    assertThat(backoff.maxRun()).isEqualTo(4);
    for (int i = 0; i < 20; i++) {
      backoff.preempted(0);
    }
    assertThat(backoff.waiting(PreemptionBackoff.MAX_WAIT_MILLIS - 1)).isTrue();
    assertThat(backoff.waiting(PreemptionBackoff.MAX_WAIT_MILLIS)).isFalse();
    assertThat(backoff.maxRun()).isEqualTo(2);

    backoff.partlyCommitted();
    assertThat(backoff.waiting(0)).as("some rewrites landed").isFalse();
    assertThat(backoff.maxRun()).isEqualTo(2);

    backoff.preempted(0);
    backoff.committed();
    assertThat(backoff.waiting(0)).isFalse();
    assertThat(backoff.maxRun()).isEqualTo(Integer.MAX_VALUE);
  }

  private static List<List<Integer>> fragmentIds(Planning.Planned planned) {
    assertThat(planned).isNotNull();
    List<List<Integer>> ids = new ArrayList<>();
    for (CompactionTask task : planned.tasks()) {
      ids.add(task.getTaskData().getFragments().stream().map(f -> f.getId()).toList());
    }
    return ids;
  }
}
