package dev.flinklance.compactor.operator;

import dev.flinklance.access.TableLoader;
import dev.flinklance.compactor.CompactionConfig;
import dev.flinklance.compactor.commit.CompactionSummary;
import dev.flinklance.compactor.commit.PlanCompletion;
import dev.flinklance.compactor.plan.PlanRef;
import dev.flinklance.compactor.rewrite.OutcomeFiles;
import dev.flinklance.compactor.rewrite.RewriteOutcome;
import dev.flinklance.files.TableFiles;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.ToIntFunction;
import java.util.function.UnaryOperator;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer;
import org.apache.flink.core.io.SimpleVersionedSerialization;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.lance.compaction.RewriteResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The compaction committer, at parallelism 1: collects a plan's rewrite outcomes, then (in the
 * background) spills lineage and commits them with Lance's {@code commitCompaction} and brings
 * vector and scalar indexes up to date with new fragments. Version cleanup, when configured, runs
 * after commits on a thread and table handle of its own, once at a time: a cleanup takes up to
 * seconds (Lance lists the table's files), and a commit waiting behind it loses its race with the
 * sink's next commit, which deletes from the fragments it rewrote (SoakITCase's upsert table: every
 * plan preempted once one was). Outcomes wait in its checkpointed state until their plan has
 * committed: a restore commits them again, unless the table's history shows that they already
 * landed. Large rewrites wait there as the names of their {@link OutcomeFiles}, deleted once a
 * checkpoint taken after their plan finished completed.
 */
@Internal
public final class CompactionCommitter extends BackgroundLanceOperator<CompactionSummary>
    implements OneInputStreamOperator<RewriteOutcome, CompactionSummary> {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(CompactionCommitter.class);
  private static final long ORPHAN_SWEEP_MILLIS = Duration.ofHours(1).toMillis();

  private final RewriteOutcome.Serializer serializer = new RewriteOutcome.Serializer();
  private final Map<String, PendingPlan> pending = new LinkedHashMap<>();
  private ListState<byte[]> state;
  private CompactionMetrics metrics;
  private Optional<TableFiles> sideFiles;
  private PlanCompletion completion;
  private OutcomeFiles outcomeFiles;
  private final BackgroundWork cleanupWork;
  private final TableLoader cleanupHandle;
  private final UnaryOperator<ToIntFunction<TableLoader>> cleanupStep;
  private boolean cleanupDue;
  private long lastOrphanSweep; // 0: the first commit sweeps
  // outcome files of finished plans: deleted once a checkpoint without them completed, so that a
  // restore still tells a plan that landed from one that did not
  private final List<RewriteOutcome> finished = new ArrayList<>();
  private final NavigableMap<Long, List<RewriteOutcome>> deletable = new TreeMap<>();

  /** A plan whose outcomes are still arriving, or that is being committed. */
  private static final class PendingPlan {
    final PlanRef ref;
    final RewriteOutcome[] outcomes;
    int received;
    boolean restored;
    boolean committing;

    PendingPlan(PlanRef ref) {
      this.ref = ref;
      this.outcomes = new RewriteOutcome[Math.max(1, ref.taskCount())];
    }

    boolean add(RewriteOutcome outcome) {
      if (outcomes[outcome.index()] == null) {
        outcomes[outcome.index()] = outcome;
        received++;
      }
      return received == outcomes.length;
    }
  }

  /** The committer's factory: it needs the task's mailbox. */
  public static MailboxOperatorFactory<RewriteOutcome, CompactionSummary> factory(
      CompactionConfig config) {
    return new MailboxOperatorFactory<>(
        CompactionCommitter.class, parameters -> new CompactionCommitter(parameters, config));
  }

  private CompactionCommitter(
      StreamOperatorParameters<CompactionSummary> parameters, CompactionConfig config) {
    this(parameters, config, UnaryOperator.identity());
  }

  /**
   * @param cleanupStep wraps the cleanup: a test holds it to see commits go on meanwhile
   */
  @VisibleForTesting
  CompactionCommitter(
      StreamOperatorParameters<CompactionSummary> parameters,
      CompactionConfig config,
      UnaryOperator<ToIntFunction<TableLoader>> cleanupStep) {
    super(parameters, config, "lance-compaction-committer");
    this.cleanupStep = cleanupStep;
    this.cleanupWork =
        new BackgroundWork("lance-compaction-cleanup", parameters.getMailboxExecutor());
    this.cleanupHandle = new TableLoader(table);
  }

  @Override
  public void initializeState(StateInitializationContext context) throws Exception {
    super.initializeState(context);
    state =
        context
            .getOperatorStateStore()
            .getListState(
                new ListStateDescriptor<>(
                    "lance-compaction-outcomes", BytePrimitiveArraySerializer.INSTANCE));
    for (byte[] bytes : state.get()) {
      RewriteOutcome outcome =
          SimpleVersionedSerialization.readVersionAndDeSerialize(serializer, bytes);
      PendingPlan plan =
          pending.computeIfAbsent(outcome.plan().planId(), id -> new PendingPlan(outcome.plan()));
      plan.restored = true;
      plan.add(outcome);
    }
  }

  @Override
  public void open() throws Exception {
    super.open();
    metrics = new CompactionMetrics(getMetricGroup(), table);
    sideFiles = TableFiles.of(table);
    completion = new PlanCompletion(config, sideFiles);
    outcomeFiles = new OutcomeFiles(table);
    for (PendingPlan plan : List.copyOf(pending.values())) {
      if (plan.received == plan.outcomes.length) {
        startCommit(plan);
      }
    }
  }

  @Override
  public void processElement(StreamRecord<RewriteOutcome> element) {
    RewriteOutcome outcome = element.getValue();
    PendingPlan plan =
        pending.computeIfAbsent(outcome.plan().planId(), id -> new PendingPlan(outcome.plan()));
    if (plan.add(outcome) && !plan.committing) {
      startCommit(plan);
    }
  }

  private void startCommit(PendingPlan plan) {
    plan.committing = true;
    List<RewriteOutcome> outcomes = List.of(plan.outcomes);
    int failed = (int) outcomes.stream().filter(o -> o.failure() != null).count();
    boolean sweep = System.currentTimeMillis() - lastOrphanSweep >= ORPHAN_SWEEP_MILLIS;
    if (sweep) {
      lastOrphanSweep = System.currentTimeMillis();
    }
    background.submit(
        "commit compaction " + plan.ref.planId(),
        () -> {
          if (sweep) {
            outcomeFiles.deleteOrphans(System.currentTimeMillis());
          }
          List<RewriteResult> rewritten = results(plan.ref, outcomes);
          long rewrites = outcomes.stream().filter(RewriteOutcome::isRewritten).count();
          int failedTasks = failed + (int) (rewrites - rewritten.size());
          return completion.commit(handle, plan.ref, rewritten, failedTasks, plan.restored);
        },
        summary -> {
          finished(plan);
          metrics.finished(summary);
          LOG.info("Compaction of {} finished: {}", table, summary);
          output.collect(new StreamRecord<>(summary));
          cleanupDue = true;
          cleanUp();
        },
        failure -> {
          finished(plan);
          metrics.failed();
          LOG.warn(
              "Compaction {} of {} failed; its fragments are planned again later",
              plan.ref.planId(),
              table,
              failure);
          handle.reset();
          output.collect(new StreamRecord<>(PlanCompletion.failed(plan.ref, failed, failure)));
        });
  }

  /** Runs the cleanup that commits asked for, unless one is running: then once it ends. */
  private void cleanUp() {
    if (!cleanupDue || !cleanupWork.isIdle() || !completion.cleansUp()) {
      return;
    }
    cleanupDue = false;
    ToIntFunction<TableLoader> step = cleanupStep.apply(completion::cleanUp);
    cleanupWork.submit(
        "clean up " + table,
        () -> step.applyAsInt(cleanupHandle),
        deleted -> {
          metrics.sideFilesDeleted(deleted);
          cleanUp();
        },
        failure -> {
          LOG.warn("Cleanup of {} failed; it runs again after the next compaction", table, failure);
          cleanupHandle.reset();
        });
  }

  private void finished(PendingPlan plan) {
    pending.remove(plan.ref.planId());
    for (RewriteOutcome outcome : plan.outcomes) {
      if (outcome.resultFile() != null) {
        finished.add(outcome);
      }
    }
  }

  @Override
  public void notifyCheckpointComplete(long checkpointId) throws Exception {
    super.notifyCheckpointComplete(checkpointId);
    SortedMap<Long, List<RewriteOutcome>> done = deletable.headMap(checkpointId, true);
    if (done.isEmpty()) {
      return;
    }
    List<RewriteOutcome> files = done.values().stream().flatMap(List::stream).toList();
    done.clear();
    background.submit(
        "delete rewrite outcome files",
        () -> {
          files.forEach(outcomeFiles::delete);
          return files.size();
        },
        deleted -> {},
        failure -> LOG.warn("Could not delete rewrite outcome files of {}", table, failure));
  }

  /** A bounded job takes no checkpoint after its input ended, and restores none. */
  @Override
  public void endInput() throws Exception {
    super.endInput();
    cleanupWork.awaitIdle();
    finished.forEach(outcomeFiles::delete);
    finished.clear();
  }

  /** The plan's rewrites; one whose file is gone is left out, as a failed task. */
  private List<RewriteResult> results(PlanRef plan, List<RewriteOutcome> outcomes) {
    List<RewriteResult> rewritten = new ArrayList<>();
    for (RewriteOutcome outcome : outcomes) {
      if (outcome.isRewritten()) {
        Optional<RewriteResult> result = outcomeFiles.result(outcome);
        if (result.isPresent()) {
          rewritten.add(result.get());
        } else {
          LOG.warn(
              "The rewrite of task {} of compaction {} of {} is gone ({} deleted, or older than {}"
                  + " and removed as an orphan); its fragments are planned again later",
              outcome.index(),
              plan.planId(),
              table,
              outcome.resultFile(),
              OutcomeFiles.ORPHAN_AGE);
        }
      }
    }
    return rewritten;
  }

  @Override
  public void snapshotState(StateSnapshotContext context) throws Exception {
    super.snapshotState(context);
    List<byte[]> outcomes = new ArrayList<>();
    for (PendingPlan plan : pending.values()) {
      for (RewriteOutcome outcome : plan.outcomes) {
        if (outcome != null) {
          outcomes.add(SimpleVersionedSerialization.writeVersionAndSerialize(serializer, outcome));
        }
      }
    }
    state.update(outcomes);
    if (!finished.isEmpty()) {
      deletable.put(context.getCheckpointId(), List.copyOf(finished));
      finished.clear();
    }
  }

  @Override
  public void close() throws Exception {
    if (cleanupWork.stop()) {
      cleanupHandle.close();
    } else {
      LOG.warn("A cleanup of {} is still running; leaving its dataset open", table);
    }
    super.close();
    if (sideFiles != null) {
      sideFiles.ifPresent(TableFiles::close);
    }
    if (outcomeFiles != null) {
      outcomeFiles.close();
    }
  }

  @Override
  public String toString() {
    return "CompactionCommitter{" + Objects.toString(table) + "}";
  }
}
