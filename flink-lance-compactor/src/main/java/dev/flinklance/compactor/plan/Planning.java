package dev.flinklance.compactor.plan;

import dev.flinklance.compactor.CompactionConfig;
import dev.flinklance.compactor.lineage.RowIdMetaJson;
import dev.flinklance.compactor.lineage.RowLineageConfig;
import dev.flinklance.files.TableFiles;
import dev.flinklance.index.MemWal;
import dev.flinklance.index.vector.IndexedDeletions;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.flink.annotation.Internal;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.compaction.Compaction;
import org.lance.compaction.CompactionPlan;
import org.lance.compaction.CompactionTask;
import org.lance.compaction.TaskData;

/** One look at the table: which in-flight plans are settled, and what to compact now. */
@Internal
public final class Planning {
  /** Lance's default: a fragment with more deleted rows than this share is rewritten. */
  static final double DELETION_SHARE = 0.1;

  /** Tasks per plan; the rest waits for the next plan. Keeps the workers' queues bounded. */
  static final int MAX_TASKS_PER_PLAN = 256;

  /**
   * The outcome of one look.
   *
   * @param memWal the table has a MemWAL ({@link MemWal}): nothing was planned
   */
  public record Evaluation(
      long version,
      int fragments,
      Set<String> settledPlans,
      int candidates,
      boolean fired,
      Planned planned,
      boolean memWal) {
    Evaluation(
        long version,
        int fragments,
        Set<String> settledPlans,
        int candidates,
        boolean fired,
        Planned planned) {
      this(version, fragments, settledPlans, candidates, fired, planned, false);
    }
  }

  /** A new plan: its tasks and the fragments they rewrite. */
  public record Planned(PlanRef ref, List<CompactionTask> tasks, InFlightPlan inFlight) {}

  private final CompactionConfig config;
  private final TriggerPolicy policy;
  private final PreemptionBackoff backoff = new PreemptionBackoff();
  private volatile boolean inputEnded;

  public Planning(CompactionConfig config) {
    this.config = config;
    this.policy = new TriggerPolicy(config);
  }

  /**
   * The writing job's input ended: no more of its deletes can preempt a plan, so the last looks
   * neither wait nor cut runs short ({@link PreemptionBackoff}). Any thread.
   */
  public void inputEnded() {
    inputEnded = true;
  }

  /**
   * Not thread-safe: one look at a time.
   *
   * @param forced plan whatever can be compacted (a standalone pass)
   */
  public Evaluation evaluate(
      Dataset latest,
      List<InFlightPlan> inFlight,
      boolean forced,
      long commitsSinceLast,
      long millisSinceLast,
      long nowMillis) {
    List<FragmentMetadata> fragments =
        latest.getFragments().stream().map(Fragment::metadata).toList();
    Set<FragmentKey> current =
        fragments.stream().map(FragmentKey::of).collect(Collectors.toCollection(HashSet::new));
    Set<String> settled = new HashSet<>();
    Set<FragmentKey> busy = new HashSet<>();
    Map<Integer, FragmentKey> byId =
        current.stream().collect(Collectors.toMap(FragmentKey::id, key -> key));
    boolean preempted = false;
    boolean partly = false;
    boolean committed = false;
    for (InFlightPlan plan : inFlight) {
      if (plan.isSettled(current, nowMillis, config.timeout().toMillis())) {
        settled.add(plan.planId());
        boolean deletedFrom = plan.wasDeletedFrom(byId);
        boolean landed = plan.sources().stream().anyMatch(source -> !byId.containsKey(source.id()));
        preempted |= deletedFrom && !landed;
        partly |= deletedFrom && landed;
        committed |= landed && !deletedFrom;
      } else {
        busy.addAll(plan.sources());
      }
    }
    if (inputEnded) {
      backoff.committed();
    } else if (preempted) {
      backoff.preempted(nowMillis);
    } else if (partly) {
      backoff.partlyCommitted();
    } else if (committed) {
      backoff.committed();
    }
    if (MemWal.isOn(latest)) {
      return new Evaluation(latest.version(), fragments.size(), settled, 0, forced, null, true);
    }
    OptionalLong spillBudget = spillBudget(latest);
    List<FragmentMetadata> toSpill =
        fragments.stream()
            .filter(f -> !busy.contains(FragmentKey.of(f)) && needsRewriteToSpill(f, spillBudget))
            .toList();
    int candidates =
        (forced
                ? (int)
                    fragments.stream()
                        .filter(f -> !busy.contains(FragmentKey.of(f)) && isCandidate(f))
                        .count()
                : TaskRuns.rewritable(fragments, busy, this::isCandidate))
            + toSpill.size();
    boolean fired =
        forced
            || (!backoff.waiting(nowMillis)
                && policy.fires(candidates, commitsSinceLast, millisSinceLast));
    if (!fired) {
      return new Evaluation(latest.version(), fragments.size(), settled, candidates, fired, null);
    }
    // before Lance plans (a rebuild preempts compactions planned before it), and also when there
    // is nothing to compact: a pass brings the vector indexes up to date
    Set<Integer> kept = IndexedDeletions.prepare(latest, busy.isEmpty());
    if (candidates == 0) {
      return new Evaluation(latest.version(), fragments.size(), settled, candidates, fired, null);
    }
    Set<FragmentKey> excluded = new HashSet<>(busy);
    fragments.stream()
        .filter(f -> kept.contains(f.getId()))
        .forEach(f -> excluded.add(FragmentKey.of(f)));
    CompactionPlan plan = Compaction.planCompaction(latest, config.lanceOptions());
    List<CompactionTask> tasks = new ArrayList<>();
    List<FragmentKey> sources = new ArrayList<>();
    for (CompactionTask task : plan.getCompactionTasks()) {
      for (List<FragmentMetadata> run :
          TaskRuns.of(task.getTaskData().getFragments(), excluded, !forced, backoff.maxRun())) {
        if (tasks.size() < MAX_TASKS_PER_PLAN) {
          tasks.add(
              new CompactionTask(
                  new TaskData(run), task.getReadVersion(), task.getCompactionOptions()));
          run.forEach(f -> sources.add(FragmentKey.of(f)));
        }
      }
    }
    for (FragmentMetadata fragment : toSpill) {
      FragmentKey key = FragmentKey.of(fragment);
      if (tasks.size() < MAX_TASKS_PER_PLAN && !sources.contains(key) && !excluded.contains(key)) {
        tasks.add(
            new CompactionTask(
                new TaskData(List.of(fragment)),
                plan.getReadVersion(),
                plan.getCompactionOptions()));
        sources.add(key);
      }
    }
    if (tasks.isEmpty()) {
      return new Evaluation(latest.version(), fragments.size(), settled, candidates, fired, null);
    }
    String planId = UUID.randomUUID().toString();
    PlanRef ref = new PlanRef(planId, plan.getReadVersion(), tasks.size(), fragments.size());
    return new Evaluation(
        latest.version(),
        fragments.size(),
        settled,
        candidates,
        fired,
        new Planned(ref, tasks, new InFlightPlan(planId, nowMillis, List.copyOf(sources))));
  }

  /** The table's inline row-id budget if compaction spills its lineage. */
  private static OptionalLong spillBudget(Dataset latest) {
    if (!latest.hasStableRowIds() || !TableFiles.supports(latest.uri())) {
      return OptionalLong.empty();
    }
    RowLineageConfig lineage = RowLineageConfig.of(latest.getConfig(), latest.uri());
    return lineage.spill() ? OptionalLong.of(lineage.inlineMaxBytes()) : OptionalLong.empty();
  }

  /**
   * A fragment whose carried-over row ids sit inline over the budget, and that only a rewrite can
   * spill: one with a deletion file (fragments without one are spilled in place by the next
   * compaction commit). Lance plans it only when enough of its rows are deleted, or together with
   * small neighbours.
   */
  private static boolean needsRewriteToSpill(FragmentMetadata fragment, OptionalLong budget) {
    return budget.isPresent()
        && fragment.getDeletionFile() != null
        && fragment.getRowIdMeta() != null
        // each byte takes at least two characters of JSON: skip the parse for small sequences
        && fragment.getRowIdMeta().getMetadata().length() > 2 * budget.getAsLong()
        && RowIdMetaJson.inlineSize(fragment.getRowIdMeta()) > budget.getAsLong();
  }

  private boolean isCandidate(FragmentMetadata fragment) {
    return fragment.getPhysicalRows() - fragment.getNumDeletions() < config.targetRowsPerFragment()
        || deletionHeavy(fragment);
  }

  static boolean deletionHeavy(FragmentMetadata fragment) {
    long rows = fragment.getPhysicalRows();
    return rows > 0 && fragment.getNumDeletions() > rows * DELETION_SHARE;
  }
}
