package dev.flinklance.index.vector;

import dev.flinklance.index.VectorIndex;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.flink.annotation.Internal;
import org.lance.Dataset;
import org.lance.Fragment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deleted rows that a vector index of a stable-row-id table still holds, and what a compaction pass
 * does about them.
 *
 * <p>lance-core 7.0.0 keeps the entry of a deleted row in the vector index, and masks it while the
 * row's fragment has a deletion file. A compaction drops the deleted rows and with them the
 * deletion files, but (row ids being stable) not the entries: once no indexed fragment has a
 * deletion file and every fragment is indexed, Lance builds no mask, the entries take places in the
 * top k and vanish when their rows are read, and a search returns fewer rows than asked for,
 * missing live neighbours. Lance's index optimisation also fails on such an index ({@code
 * batch.num_rows() != chunk.len()}), with or without retraining, so new fragments never reach it.
 * Only an index built anew holds no deleted rows. Without stable row ids a compaction remaps the
 * index and drops the entries itself.
 *
 * <p>So before a pass plans, every index holding deleted rows is rebuilt (same type and
 * parameters). A rebuild must land before the plan's read version: a compaction planned earlier is
 * preempted by it. Fragments whose deleted rows an index still holds (its rebuild failed, or a plan
 * of ours is in flight) are left out of the plan: their deletion files keep the search exact.
 */
@Internal
public final class IndexedDeletions {
  private static final Logger LOG = LoggerFactory.getLogger(IndexedDeletions.class);

  private IndexedDeletions() {}

  /**
   * Before a pass plans.
   *
   * @param dataset the table, moved to its latest version after a rebuild
   * @param mayRebuild whether the pass may rebuild indexes now: not while a compaction it planned
   *     is in flight (the rebuild would preempt it)
   * @return the fragments the pass must not compact
   */
  public static Set<Integer> prepare(Dataset dataset, boolean mayRebuild) {
    if (!dataset.hasStableRowIds()) {
      return Set.of();
    }
    List<VectorIndex> holding = holding(dataset);
    if (holding.isEmpty()) {
      return Set.of();
    }
    if (mayRebuild) {
      holding.forEach(index -> rebuild(dataset, index));
      dataset.checkoutLatest();
      holding = holding(dataset);
    }
    Set<Integer> covered =
        holding.stream().flatMap(i -> i.fragmentIds().stream()).collect(Collectors.toSet());
    Set<Integer> kept =
        dataset.getFragments().stream()
            .filter(f -> f.metadata().getDeletionFile() != null && covered.contains(f.getId()))
            .map(Fragment::getId)
            .collect(Collectors.toSet());
    if (!kept.isEmpty()) {
      LOG.info(
          "Vector indexes {} of {} hold deleted rows of {} fragments; those fragments are not"
              + " compacted until the indexes are rebuilt",
          holding.stream().map(VectorIndex::name).toList(),
          dataset.uri(),
          kept.size());
    }
    return kept;
  }

  /**
   * Whether {@code index} holds entries of deleted rows of a stable-row-id table: more entries than
   * live rows in the fragments it covers. Assumed when Lance's statistics cannot be read.
   */
  public static boolean holdsDeletedRows(Dataset dataset, VectorIndex index) {
    if (!dataset.hasStableRowIds()) {
      return false;
    }
    try {
      Map<String, Object> statistics = dataset.getIndexStatistics(index.name());
      return IndexStatistics.entries(statistics) > IndexStatistics.indexedRows(statistics);
    } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
      LOG.warn(
          "Cannot read the statistics of vector index {} of {}; assuming it holds deleted rows",
          index.name(),
          dataset.uri(),
          e);
      return true;
    }
  }

  private static List<VectorIndex> holding(Dataset dataset) {
    return VectorIndex.of(dataset).stream()
        .filter(index -> holdsDeletedRows(dataset, index))
        .toList();
  }

  private static void rebuild(Dataset dataset, VectorIndex index) {
    long start = System.nanoTime();
    try {
      VectorIndexRebuild.run(dataset, index);
      LOG.info(
          "Rebuilt vector index {} of {} in {} ms: it held deleted rows, which a compaction"
              + " would have turned into missing search results",
          index.name(),
          dataset.uri(),
          (System.nanoTime() - start) / 1_000_000);
    } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
      LOG.warn(
          "Cannot rebuild vector index {} of {}; the fragments whose deleted rows it holds are not"
              + " compacted until a pass rebuilds it",
          index.name(),
          dataset.uri(),
          e);
    }
  }
}
