package dev.flinklance.compactor.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.compactor.CompactionConfig;
import dev.flinklance.compactor.commit.CompactionSummary;
import dev.flinklance.compactor.commit.CompactionSummary.Outcome;
import dev.flinklance.compactor.rewrite.RewriteOutcome;
import dev.flinklance.testing.FragmentFixtures;
import dev.flinklance.testing.SerializerSnapshots;
import java.io.IOException;
import java.util.List;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;
import org.lance.compaction.CompactionMetrics;
import org.lance.compaction.CompactionMode;
import org.lance.compaction.CompactionOptions;
import org.lance.compaction.CompactionTask;
import org.lance.compaction.RewriteResult;
import org.lance.compaction.TaskData;

/**
 * The compactor's formats: rewrite tasks (on the wire, in unaligned checkpoints' in-flight data),
 * rewrite outcomes (in the committer's state until their plan committed; format 2 added the outcome
 * file, format 1 is read), summaries (to the job's collector) and the planner's state (its counters
 * and plans in flight). How to add a format: {@link SerializerSnapshots}.
 */
class CompactorSerializerSnapshotsTest extends SerializerSnapshots {
  private static final RewriteTask.Serializer TASKS = new RewriteTask.Serializer();
  private static final RewriteOutcome.Serializer OUTCOMES = new RewriteOutcome.Serializer();
  private static final CompactionSummary.Serializer SUMMARIES = new CompactionSummary.Serializer();
  private static final PlannerState.Serializer PLANNER_STATES = new PlannerState.Serializer();

  private static final PlanRef PLAN = new PlanRef("plan-ü-\uD83D\uDE00", 5_000_000_000L, 3, 12);

  @Override
  protected List<Snapshot<?>> snapshots() {
    return List.of(
        Snapshot.current(
            "rewrite-task",
            TASKS,
            new RewriteTask(PLAN, 2, task(new TaskData(FragmentFixtures.all()), everyOption()))),
        Snapshot.current(
            "rewrite-task-default-options",
            TASKS,
            new RewriteTask(
                PLAN,
                0,
                task(
                    new TaskData(List.of(FragmentFixtures.bare())),
                    CompactionOptions.builder().build()))),
        Snapshot.current("rewrite-task-empty-plan", TASKS, RewriteTask.emptyPlan(emptyPlan())),
        Snapshot.older(
            "rewrite-outcome-rewritten",
            OUTCOMES,
            1,
            RewriteOutcome.rewritten(PLAN, 1, result(new byte[] {0, 1, -128, 127}))),
        Snapshot.older(
            "rewrite-outcome-no-row-addresses",
            OUTCOMES,
            1,
            RewriteOutcome.rewritten(PLAN, 0, result(null))),
        Snapshot.older(
            "rewrite-outcome-failed",
            OUTCOMES,
            1,
            RewriteOutcome.failed(PLAN, 2, "Lance refused: ünïcode \uD83D\uDE00\n at line 2")),
        Snapshot.older(
            "rewrite-outcome-empty-plan", OUTCOMES, 1, RewriteOutcome.emptyPlan(emptyPlan())),
        Snapshot.current(
            "rewrite-outcome-rewritten",
            OUTCOMES,
            RewriteOutcome.rewritten(PLAN, 1, result(new byte[] {0, 1, -128, 127}))),
        Snapshot.current(
            "rewrite-outcome-no-row-addresses",
            OUTCOMES,
            RewriteOutcome.rewritten(PLAN, 0, result(null))),
        Snapshot.current(
            "rewrite-outcome-held",
            OUTCOMES,
            new RewriteOutcome(
                PLAN, 1, null, "_compaction/0b9e1a3c-5d7f-4e21-9a8b-c3d4e5f60718.rewrite", null)),
        Snapshot.current(
            "rewrite-outcome-failed",
            OUTCOMES,
            RewriteOutcome.failed(PLAN, 2, "Lance refused: ünïcode \uD83D\uDE00\n at line 2")),
        Snapshot.current(
            "rewrite-outcome-empty-plan", OUTCOMES, RewriteOutcome.emptyPlan(emptyPlan())),
        Snapshot.current("compaction-summary", SUMMARIES, summary()),
        Snapshot.current(
            "compaction-summary-nothing-to-compact",
            SUMMARIES,
            CompactionSummary.builder("empty-1", Outcome.NOTHING_TO_COMPACT, 0).build()),
        Snapshot.current("compaction-planner-state", PLANNER_STATES, plannerState()),
        Snapshot.current(
            "compaction-planner-state-idle",
            PLANNER_STATES,
            new PlannerState(0, Long.MIN_VALUE, List.of())));
  }

  @Override
  protected Class<?> mainClass() {
    return CompactionConfig.class;
  }

  /**
   * The planner's state holds its format before the serialized state, without the length {@code
   * SimpleVersionedSerialization} puts between them: the layout of the planner's format 1.
   */
  @Test
  void thePlannerStateCarriesItsFormat() throws IOException {
    DataOutputSerializer format1 = new DataOutputSerializer(256);
    format1.writeInt(1);
    format1.write(PLANNER_STATES.serialize(plannerState()));

    assertThat(plannerState().toBytes()).isEqualTo(format1.getCopyOfBuffer());
    assertThat(PlannerState.fromBytes(format1.getCopyOfBuffer())).isEqualTo(plannerState());

    byte[] format2 = plannerState().toBytes();
    format2[3] = 2;
    assertThatThrownBy(() -> PlannerState.fromBytes(format2))
        .hasMessageContaining("compaction planner states in this checkpoint or savepoint have")
        .hasMessageContaining("format 2; this connector reads format 1");
  }

  private static PlanRef emptyPlan() {
    return new PlanRef("empty-1764633600000", 1, 0, 0);
  }

  private static CompactionTask task(TaskData data, CompactionOptions options) {
    return new CompactionTask(data, Long.MAX_VALUE, options);
  }

  private static CompactionOptions everyOption() {
    return CompactionOptions.builder()
        .withTargetRowsPerFragment(5_000_000_000L)
        .withMaxRowsPerGroup(1024)
        .withMaxBytesPerFile(90L << 30)
        .withMaterializeDeletions(false)
        .withMaterializeDeletionsThreshold(0.1f)
        .withNumThreads(4)
        .withBatchSize(8192)
        .withDeferIndexRemap(true)
        .withCompactionMode(CompactionMode.TRY_BINARY_COPY)
        .withBinaryCopyReadBatchBytes(16L << 20)
        .withMaxSourceFragments(64)
        .build();
  }

  private static RewriteResult result(byte[] rowAddrs) {
    return new RewriteResult(
        new CompactionMetrics(3, 1, 4, 1),
        List.of(FragmentFixtures.full()),
        List.of(FragmentFixtures.nullDeletionFields(), FragmentFixtures.bare()),
        5_000_000_000L,
        rowAddrs);
  }

  private static CompactionSummary summary() {
    return CompactionSummary.builder("plan-7", Outcome.COMMITTED, 12)
        .committed(42, 3)
        .rewrote(10, 1, 1_000_000, 50L << 20)
        .lineageBytesSpilled(4096)
        .groupsPreempted(1)
        .durationMs(1234)
        .failure("a rewrite of fragment 3 failed: ünïcode")
        .build();
  }

  private static PlannerState plannerState() {
    return new PlannerState(
        Long.MAX_VALUE,
        1_764_633_600_000L,
        List.of(
            new InFlightPlan(
                "plan-ü",
                1_764_633_600_001L,
                List.of(
                    new FragmentKey(0, "data/ünï-\uD83D\uDE00.lance", 0),
                    new FragmentKey(Integer.MAX_VALUE, "", Long.MAX_VALUE))),
            new InFlightPlan("plan-2", 0, List.of())));
  }
}
