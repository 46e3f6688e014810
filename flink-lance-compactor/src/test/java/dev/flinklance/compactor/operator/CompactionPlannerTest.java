package dev.flinklance.compactor.operator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.compactor.CompactionConfig;
import dev.flinklance.compactor.plan.FragmentKey;
import dev.flinklance.compactor.plan.InFlightPlan;
import dev.flinklance.compactor.plan.PlanRef;
import dev.flinklance.compactor.plan.PlanRequest;
import dev.flinklance.compactor.plan.PlannerState;
import dev.flinklance.compactor.plan.RewriteTask;
import dev.flinklance.compactor.rewrite.RewriteOutcome;
import dev.flinklance.compactor.testing.LineageTables;
import dev.flinklance.index.MemWal;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.LogCapture;
import dev.flinklance.testing.OperatorMail;
import dev.flinklance.testing.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.compaction.Compaction;
import org.lance.compaction.RewriteResult;

/**
 * The compaction planner on Flink's operator test harness, on real tables: it counts the sink's
 * commits until a trigger fires, plans with Lance, keeps its plans in flight in its state (and
 * their fragments out of new plans) until the table shows their outcome or they time out, folds
 * requests that come during a look into one more look, and leaves a table with a MemWAL alone. Its
 * Lance calls run in the background; each result is run from the harness's mailbox by the test.
 */
class CompactionPlannerTest {
  /** The harness's processing time at start. */
  private static final long NOW = 1_000_000;

  @TempDir Path dir;
  private String table;

  @BeforeEach
  void fourSmallFragments() {
    table = dir.resolve("t").toString();
    LineageTables.createStable(table);
    LineageTables.append(table, 0, 400, 4);
  }

  @Test
  void countsCommitsUntilTheTriggerFiresThenPlansAndKeepsThePlanInItsState() throws Exception {
    CompactionConfig config =
        Plans.config(
            table, "compaction.trigger.commits", "3", "compaction.trigger.small-fragments", "100");
    try (var planner = planner(config, null)) {
      for (int commit = 1; commit <= 2; commit++) {
        planner.processElement(new StreamRecord<>(PlanRequest.COMMIT));
        OperatorMail.runNext(planner, "look " + commit);
        assertThat(planner.extractOutputValues()).as("after commit %d", commit).isEmpty();
        assertThat(state(planner, commit)).isEqualTo(new PlannerState(commit, NOW, List.of()));
      }

      planner.processElement(new StreamRecord<>(PlanRequest.COMMIT));
      OperatorMail.runNext(planner, "the third look");

      RewriteTask task = onlyTask(planner.extractOutputValues());
      assertThat(task.plan())
          .isEqualTo(new PlanRef(task.plan().planId(), LanceTestTables.latestVersion(table), 1, 4));
      assertThat(fragmentIds(task)).containsExactly(0, 1, 2, 3);
      assertThat(state(planner, 3))
          .isEqualTo(
              new PlannerState(
                  0, NOW, List.of(new InFlightPlan(task.plan().planId(), NOW, keys(task)))));
    }
  }

  @Test
  void commitsDuringALookAreCountedAndFoldedIntoOneMoreLook() throws Exception {
    CompactionConfig config =
        Plans.config(
            table, "compaction.trigger.commits", "2", "compaction.trigger.small-fragments", "100");
    try (var planner = planner(config, null)) {
      for (int commit = 0; commit < 3; commit++) {
        planner.processElement(new StreamRecord<>(PlanRequest.COMMIT));
      }
      OperatorMail.runNext(planner, "the look at the first commit");
      assertThat(planner.extractOutputValues()).as("one commit: no trigger").isEmpty();
      OperatorMail.runNext(planner, "the look at the next two");

      RewriteTask task = onlyTask(planner.extractOutputValues());
      assertThat(state(planner, 1).commitsSinceLast()).isZero();
      assertThat(state(planner, 1).inFlight())
          .extracting(InFlightPlan::planId)
          .containsExactly(task.plan().planId());
    }
  }

  /**
   * A plan restored from a snapshot keeps its fragments out of the next plan; once the table shows
   * its rewrite committed, it is settled and leaves the state.
   */
  @Test
  void aRestoredPlanInFlightKeepsItsFragmentsOutOfNewPlansUntilTheTableShowsItsOutcome()
      throws Exception {
    CompactionConfig config = Plans.config(table);
    OperatorSubtaskState snapshot;
    RewriteTask first;
    try (var planner = planner(config, null)) {
      planner.processElement(new StreamRecord<>(PlanRequest.PASS));
      OperatorMail.runNext(planner, "the pass's look");
      first = onlyTask(planner.extractOutputValues());
      snapshot = planner.snapshot(1, 1);
    }
    LineageTables.append(table, 400, 200, 2);

    try (var restored = planner(config, snapshot)) {
      assertThat(state(restored, 2).inFlight())
          .containsExactly(new InFlightPlan(first.plan().planId(), NOW, keys(first)));

      restored.processElement(new StreamRecord<>(PlanRequest.PASS));
      OperatorMail.runNext(restored, "a look while the first plan is in flight");
      RewriteTask second = onlyTask(restored.extractOutputValues());
      assertThat(fragmentIds(second)).as("only the new fragments").containsExactly(4, 5);

      commitWithLance(first);
      restored.processElement(new StreamRecord<>(PlanRequest.PASS));
      OperatorMail.runNext(restored, "a look after the first plan committed");

      assertThat(state(restored, 3).inFlight())
          .as("the first plan is settled, the second still in flight")
          .extracting(InFlightPlan::planId)
          .containsExactly(second.plan().planId());
    }
  }

  /** A plan whose outcome never shows in the table is settled by {@code compaction.timeout}. */
  @Test
  void aPlanWhoseOutcomeNeverShowsIsPlannedAgainAfterTheTimeout() throws Exception {
    Duration timeout = Duration.ofMinutes(10);
    CompactionConfig config = Plans.config(table, "compaction.timeout", "10 min");
    try (var planner = planner(config, null)) {
      planner.processElement(new StreamRecord<>(PlanRequest.PASS));
      OperatorMail.runNext(planner, "the pass's look");
      RewriteTask lost = onlyTask(planner.extractOutputValues());
      planner.getOutput().clear();

      planner.setProcessingTime(NOW + timeout.toMillis()); // the harness runs the timer at once
      OperatorMail.runNext(planner, "the timer's look");
      assertThat(planner.extractOutputValues()).as("no trigger fired").isEmpty();
      assertThat(state(planner, 1).inFlight()).isEmpty();

      planner.processElement(new StreamRecord<>(PlanRequest.PASS));
      OperatorMail.runNext(planner, "the next pass's look");
      RewriteTask again = onlyTask(planner.extractOutputValues());
      assertThat(again.plan().planId()).isNotEqualTo(lost.plan().planId());
      assertThat(keys(again)).isEqualTo(keys(lost));
    }
  }

  /** Issue 28: lance-core 7.0.0 aborts the JVM compacting a table with a MemWAL. */
  @Test
  void aTableWithAMemWalIsNeverPlannedAndThePlannerSaysWhyOnce() throws Exception {
    String memWal = dir.resolve("memwal").toString();
    Plans.twelveSmallFragmentsWithAKey(memWal);
    TestTables.initializeMemWal(memWal);
    long version = LanceTestTables.latestVersion(memWal);

    String log;
    List<RewriteTask> tasks;
    try (LogCapture capture = LogCapture.start();
        var planner = planner(Plans.config(memWal), null)) {
      for (int pass = 1; pass <= 2; pass++) {
        planner.processElement(new StreamRecord<>(PlanRequest.PASS));
        OperatorMail.runNext(planner, "look " + pass);
      }
      tasks = planner.extractOutputValues();
      assertThat(state(planner, 1).inFlight()).isEmpty();
      log = capture.text();
    }

    assertThat(tasks).as("each pass: an empty plan").hasSize(2).allMatch(RewriteTask::isEmptyPlan);
    assertThat(tasks).extracting(t -> t.plan().fragmentsBefore()).containsOnly(12);
    assertThat(log).containsOnlyOnce("it has a MemWAL (" + MemWal.INDEX + " index)");
    assertThat(LanceTestTables.latestVersion(memWal)).isEqualTo(version);
  }

  @Test
  void theEndOfInputWaitsForTheLookInFlightAndNothingIsPlannedAfterIt() throws Exception {
    CompactionConfig config = Plans.config(table, "compaction.timeout", "10 min");
    try (var planner = planner(config, null)) {
      planner.processElement(new StreamRecord<>(PlanRequest.PASS));
      planner.endInput();
      assertThat(planner.extractOutputValues()).hasSize(1);

      planner.setProcessingTime(NOW + Duration.ofMinutes(10).toMillis()); // runs the timer

      BackgroundWork background = ((BackgroundLanceOperator<?>) planner.getOperator()).background;
      assertThat(background.isIdle()).as("no look started").isTrue();
      assertThat(planner.extractOutputValues()).hasSize(1);
    }
  }

  private static OneInputStreamOperatorTestHarness<PlanRequest, RewriteTask> planner(
      CompactionConfig config, OperatorSubtaskState restored) throws Exception {
    var harness =
        new OneInputStreamOperatorTestHarness<PlanRequest, RewriteTask>(
            CompactionPlanner.factory(config));
    harness.setProcessingTime(NOW);
    harness.initializeState(restored);
    harness.open();
    return harness;
  }

  /** The planner's state in a snapshot taken now. */
  private static PlannerState state(
      OneInputStreamOperatorTestHarness<PlanRequest, RewriteTask> planner, long checkpoint)
      throws Exception {
    planner.snapshot(checkpoint, checkpoint);
    List<byte[]> entries = new ArrayList<>();
    planner
        .getOperator()
        .getOperatorStateBackend()
        .getListState(
            new ListStateDescriptor<>(
                "lance-compaction-planner", BytePrimitiveArraySerializer.INSTANCE))
        .get()
        .forEach(entries::add);
    assertThat(entries).hasSize(1);
    return PlannerState.fromBytes(entries.get(0));
  }

  private static RewriteTask onlyTask(List<RewriteTask> tasks) {
    assertThat(tasks).hasSize(1);
    assertThat(tasks.get(0).isEmptyPlan()).isFalse();
    return tasks.get(0);
  }

  private static List<Integer> fragmentIds(RewriteTask task) {
    return task.task().getTaskData().getFragments().stream().map(f -> f.getId()).sorted().toList();
  }

  private static List<FragmentKey> keys(RewriteTask task) {
    return task.task().getTaskData().getFragments().stream().map(FragmentKey::of).toList();
  }

  /** What the workers and the committer would do with the plan, done with plain Lance. */
  private void commitWithLance(RewriteTask task) {
    List<RewriteOutcome> outcomes = Plans.rewrite(Plans.config(table), List.of(task));
    List<RewriteResult> results = outcomes.stream().map(RewriteOutcome::result).toList();
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open(table, allocator)) {
      Compaction.commitCompaction(dataset, results, task.task().getCompactionOptions());
    }
    assertThat(LanceTestTables.fragmentCount(table)).isEqualTo(3);
  }
}
