package dev.flinklance.compactor.plan;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.lance.FragmentMetadata;

/**
 * Which adjacent fragments of a task Lance planned are rewritten together. Lance plans every
 * fragment under the target size, adjacent ones together: a table that stays under the target (an
 * upsert table of a few thousand keys, with a 50,000-row target) is rewritten whole each time a few
 * small fragments arrive, and the big fragment, which the upserts delete from at every checkpoint,
 * makes nearly every such plan lose to them. So the task is split:
 *
 * <ul>
 *   <li>at fragments that an unfinished plan is rewriting, or that must not be compacted yet: one
 *       busy fragment must not hold back the others;
 *   <li>unless the pass was asked for, at a dominant fragment, one with more live rows than all the
 *       others of its run together and at most {@link Planning#DELETION_SHARE} of its rows deleted:
 *       the small fragments are merged among themselves first, and a merged fragment joins the big
 *       one only once it is as big as the rest (size tiers: a row is rewritten about log(n) times,
 *       not once per compaction);
 *   <li>into runs of at most {@code maxRun} fragments ({@link PreemptionBackoff}).
 * </ul>
 *
 * A lone fragment is kept only if Lance planned it alone (to drop its deleted rows).
 */
final class TaskRuns {
  private static final int DOMINANCE = 2;

  private TaskRuns() {}

  static List<List<FragmentMetadata>> of(
      List<FragmentMetadata> fragments, Set<FragmentKey> busy, boolean tiered, int maxRun) {
    List<List<FragmentMetadata>> runs = new ArrayList<>();
    for (List<FragmentMetadata> run : notBusy(fragments, busy)) {
      for (List<FragmentMetadata> tier : tiered ? tiers(run) : List.of(run)) {
        for (int from = 0; from < tier.size(); from += maxRun) {
          // a mutable copy: Kryo, which Flink 1.20's test harness copies records with, cannot
          // rebuild an immutable list inside Lance's TaskData
          runs.add(new ArrayList<>(tier.subList(from, Math.min(tier.size(), from + maxRun))));
        }
      }
    }
    runs.removeIf(r -> r.size() < 2 && fragments.size() > 1);
    return runs;
  }

  /**
   * How many fragments a plan in a job would rewrite: Lance bins adjacent candidates, and of each
   * bin the tiers of two or more fragments are rewritten, and a lone fragment with many deletions.
   * The trigger counts these, not every candidate: a big fragment left out of the plans must not
   * make them come more often.
   */
  static int rewritable(
      List<FragmentMetadata> fragments,
      Set<FragmentKey> busy,
      Predicate<FragmentMetadata> candidate) {
    int count = 0;
    List<FragmentMetadata> bin = new ArrayList<>();
    for (FragmentMetadata fragment : fragments) {
      if (candidate.test(fragment) && !busy.contains(FragmentKey.of(fragment))) {
        bin.add(fragment);
      } else {
        count += rewritable(bin);
        bin = new ArrayList<>();
      }
    }
    return count + rewritable(bin);
  }

  private static int rewritable(List<FragmentMetadata> bin) {
    int count = 0;
    for (List<FragmentMetadata> tier : tiers(bin)) {
      if (tier.size() > 1 || (tier.size() == 1 && Planning.deletionHeavy(tier.get(0)))) {
        count += tier.size();
      }
    }
    return count;
  }

  private static List<List<FragmentMetadata>> notBusy(
      List<FragmentMetadata> fragments, Set<FragmentKey> busy) {
    List<List<FragmentMetadata>> runs = new ArrayList<>();
    List<FragmentMetadata> run = new ArrayList<>();
    for (FragmentMetadata fragment : fragments) {
      if (busy.contains(FragmentKey.of(fragment))) {
        run = new ArrayList<>();
      } else {
        if (run.isEmpty()) {
          runs.add(run);
        }
        run.add(fragment);
      }
    }
    return runs;
  }

  /** The run split at its dominant fragment, again and again, until none has one. */
  private static List<List<FragmentMetadata>> tiers(List<FragmentMetadata> run) {
    if (run.size() < 2) {
      return List.of(run);
    }
    int largest = 0;
    long total = 0;
    for (int i = 0; i < run.size(); i++) {
      total += liveRows(run.get(i));
      if (liveRows(run.get(i)) > liveRows(run.get(largest))) {
        largest = i;
      }
    }
    FragmentMetadata candidate = run.get(largest);
    long rest = total - liveRows(candidate);
    if (liveRows(candidate) <= DOMINANCE * rest || Planning.deletionHeavy(candidate)) {
      return List.of(run);
    }
    List<List<FragmentMetadata>> tiers = new ArrayList<>(tiers(run.subList(0, largest)));
    tiers.addAll(tiers(run.subList(largest + 1, run.size())));
    return tiers;
  }

  private static long liveRows(FragmentMetadata fragment) {
    return fragment.getPhysicalRows() - fragment.getNumDeletions();
  }
}
