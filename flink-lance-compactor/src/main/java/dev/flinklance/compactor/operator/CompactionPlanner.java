package dev.flinklance.compactor.operator;

import dev.flinklance.compactor.CompactionConfig;
import dev.flinklance.compactor.plan.InFlightPlan;
import dev.flinklance.compactor.plan.PlanRef;
import dev.flinklance.compactor.plan.PlanRequest;
import dev.flinklance.compactor.plan.PlannerState;
import dev.flinklance.compactor.plan.Planning;
import dev.flinklance.compactor.plan.RewriteTask;
import dev.flinklance.index.MemWal;
import dev.flinklance.metrics.LanceMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.lance.compaction.CompactionTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The trigger and planner, at parallelism 1: counts the sink's commits, looks at the table on each
 * commit, standalone pass and timer, and when a trigger fires plans with Lance's {@code
 * planCompaction} and sends the tasks to the rewrite workers. Plans whose outcome it has not seen
 * in the table yet keep their fragments out of new plans. Before it plans, it rebuilds the vector
 * indexes of a stable-row-id table that hold deleted rows ({@link
 * dev.flinklance.index.vector.IndexedDeletions}). All Lance calls run in the background; its state
 * (counters, plans in flight) is in every checkpoint.
 */
@Internal
public final class CompactionPlanner extends BackgroundLanceOperator<RewriteTask>
    implements OneInputStreamOperator<PlanRequest, RewriteTask> {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(CompactionPlanner.class);
  private static final long MIN_TIMER_MILLIS = 100;

  private final Planning planning;
  private ListState<byte[]> state;
  private Counter plans;
  private volatile int lastCandidates;

  private long commitsSinceLast;
  private long lastCompactionMillis;
  private List<InFlightPlan> inFlight = new ArrayList<>();
  private boolean evaluating;
  private boolean evaluateAgain;
  private boolean forcePending;
  private boolean ended;
  private boolean memWalReported;

  /** The planner's factory: it needs the task's mailbox. */
  public static MailboxOperatorFactory<PlanRequest, RewriteTask> factory(CompactionConfig config) {
    return new MailboxOperatorFactory<>(
        CompactionPlanner.class, parameters -> new CompactionPlanner(parameters, config));
  }

  private CompactionPlanner(
      StreamOperatorParameters<RewriteTask> parameters, CompactionConfig config) {
    super(parameters, config, "lance-compaction-planner");
    this.planning = new Planning(config);
  }

  @Override
  public void initializeState(StateInitializationContext context) throws Exception {
    super.initializeState(context);
    state =
        context
            .getOperatorStateStore()
            .getListState(
                new ListStateDescriptor<>(
                    "lance-compaction-planner", BytePrimitiveArraySerializer.INSTANCE));
    lastCompactionMillis = getProcessingTimeService().getCurrentProcessingTime();
    for (byte[] bytes : state.get()) {
      PlannerState restored = PlannerState.fromBytes(bytes);
      commitsSinceLast = restored.commitsSinceLast();
      lastCompactionMillis = restored.lastCompactionMillis();
      inFlight.addAll(restored.inFlight());
    }
  }

  @Override
  public void open() throws Exception {
    super.open();
    MetricGroup metrics = LanceMetrics.tableGroup(getMetricGroup(), table);
    plans = metrics.counter("compactionPlans");
    metrics.gauge("compactionCandidates", () -> lastCandidates);
    scheduleTimer();
  }

  @Override
  public void processElement(StreamRecord<PlanRequest> element) {
    if (element.getValue() == PlanRequest.COMMIT) {
      commitsSinceLast++;
    } else {
      forcePending = true;
    }
    evaluate();
  }

  private void scheduleTimer() {
    long period =
        Math.max(
            MIN_TIMER_MILLIS,
            Math.min(config.triggerInterval().toMillis(), config.timeout().toMillis()) / 2);
    getProcessingTimeService()
        .registerTimer(
            getProcessingTimeService().getCurrentProcessingTime() + period,
            time -> {
              evaluate();
              scheduleTimer();
            });
  }

  /** Looks at the table in the background; a request during a look is folded into one more. */
  private void evaluate() {
    if (ended) {
      return;
    }
    if (evaluating) {
      evaluateAgain = true;
      return;
    }
    evaluating = true;
    evaluateAgain = false;
    boolean forced = forcePending;
    forcePending = false;
    List<InFlightPlan> plansInFlight = List.copyOf(inFlight);
    long commits = commitsSinceLast;
    long now = getProcessingTimeService().getCurrentProcessingTime();
    long sinceLast = now - lastCompactionMillis;
    background.submit(
        "evaluate compaction triggers",
        () ->
            handle
                .latestIfExists()
                .map(d -> planning.evaluate(d, plansInFlight, forced, commits, sinceLast, now)),
        evaluation -> applied(evaluation, forced, now),
        failure -> {
          evaluating = false;
          LOG.warn("Could not plan a compaction of {}; trying again later", table, failure);
          handle.reset();
        });
  }

  private void applied(Optional<Planning.Evaluation> result, boolean forced, long now) {
    evaluating = false;
    if (result.isPresent()) {
      Planning.Evaluation evaluation = result.get();
      reportMemWal(evaluation);
      lastCandidates = evaluation.candidates();
      inFlight.removeIf(plan -> evaluation.settledPlans().contains(plan.planId()));
      if (evaluation.fired()) {
        commitsSinceLast = 0;
        lastCompactionMillis = now;
      }
      Planning.Planned planned = evaluation.planned();
      if (planned != null) {
        emit(planned);
      } else if (forced) {
        output.collect(
            new StreamRecord<>(
                RewriteTask.emptyPlan(
                    new PlanRef("empty-" + now, evaluation.version(), 0, evaluation.fragments()))));
      }
    }
    if (evaluateAgain || forcePending) {
      evaluate();
    }
  }

  private void reportMemWal(Planning.Evaluation evaluation) {
    if (evaluation.memWal() && !memWalReported) {
      LOG.warn(
          "Not compacting {}: it has a MemWAL ({} index), which lance-core 7.0.0 cannot compact"
              + " (its native code aborts the JVM). Compaction and index upkeep of this table are"
              + " skipped while the MemWAL is there; the sink and version cleanup go on.",
          table,
          MemWal.INDEX);
      memWalReported = true;
    }
  }

  private void emit(Planning.Planned planned) {
    inFlight.add(planned.inFlight());
    plans.inc();
    LOG.info(
        "Planned compaction {} of {} at version {}: {} tasks over {} fragments",
        planned.ref().planId(),
        table,
        planned.ref().readVersion(),
        planned.tasks().size(),
        planned.inFlight().sources().size());
    int index = 0;
    for (CompactionTask task : planned.tasks()) {
      output.collect(new StreamRecord<>(new RewriteTask(planned.ref(), index++, task)));
    }
  }

  @Override
  public void endInput() throws Exception {
    // a last look that need not wait for a backoff: the table is compacted before the job ends
    planning.inputEnded();
    evaluate();
    super.endInput();
    ended = true; // timers may still fire; nothing may be emitted after the input ended
  }

  @Override
  public void snapshotState(StateSnapshotContext context) throws Exception {
    super.snapshotState(context);
    state.update(
        List.of(new PlannerState(commitsSinceLast, lastCompactionMillis, inFlight).toBytes()));
  }
}
