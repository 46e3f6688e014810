package dev.flinklance.index;

import dev.flinklance.errors.LanceCalls;
import dev.flinklance.key.PrimaryKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.annotation.Internal;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.index.IndexParams;
import org.lance.index.IndexType;
import org.lance.index.OptimizeOptions;
import org.lance.index.scalar.BTreeIndexParams;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The BTree indexes over a primary key's columns (one per column), through which {@link KeyLookup}
 * finds the rows of a few keys without scanning the table. Rows appended after an index was built
 * or last brought up to date are not in it (a lookup scans their fragments); {@link #upkeep} adds
 * them once they are many.
 */
@Internal
public final class KeyIndex {
  private static final Logger LOG = LoggerFactory.getLogger(KeyIndex.class);

  /**
   * Upkeep adds unindexed rows once there are this many, or a tenth of the indexed rows if that is
   * more: optimizing a BTree rewrites the whole index whatever the number of new rows, while a
   * lookup scans an unindexed row cheaply (docs/lance-core.md has the measurements); so upkeep runs
   * rarely and the unindexed part stays small next to the indexed one.
   */
  static final long MIN_UNINDEXED_ROWS = 100_000;

  private KeyIndex() {}

  /** The name of the index the sink builds over a key column. */
  public static String nameFor(String column) {
    return column + "_key_idx";
  }

  /** Each key column's BTree index, where it has one. */
  public static Map<String, ScalarIndex> of(Dataset dataset, PrimaryKey key) {
    Map<String, ScalarIndex> indexes = new HashMap<>();
    for (ScalarIndex index : ScalarIndex.btreesOf(dataset)) {
      if (key.columns().contains(index.column())) {
        indexes.putIfAbsent(index.column(), index);
      }
    }
    return indexes;
  }

  /** The fragments every key column's index covers: a lookup can use the index there. */
  static Set<Integer> coveredFragments(Dataset dataset, PrimaryKey key) {
    Map<String, ScalarIndex> indexes = of(dataset, key);
    if (indexes.size() < key.columns().size()) {
      return Set.of();
    }
    Set<Integer> covered = null;
    for (ScalarIndex index : indexes.values()) {
      if (covered == null) {
        covered = new HashSet<>(index.fragmentIds());
      } else {
        covered.retainAll(index.fragmentIds());
      }
    }
    return covered;
  }

  /**
   * Builds a BTree index over each key column that has none. Each build is its own Lance commit (a
   * CreateIndex, which does not conflict with concurrent appends).
   *
   * @return the indexes built
   */
  public static List<String> ensure(Dataset dataset, PrimaryKey key) {
    Map<String, ScalarIndex> existing = of(dataset, key);
    List<String> built = new ArrayList<>();
    for (String column : key.columns()) {
      if (existing.containsKey(column)) {
        continue;
      }
      long start = System.nanoTime();
      LanceCalls.run(
          dataset.uri(),
          "cannot build the key index over column '" + column + "'",
          () ->
              dataset.createIndex(
                  List.of(column),
                  IndexType.BTREE,
                  Optional.of(nameFor(column)),
                  IndexParams.builder()
                      .setScalarIndexParams(BTreeIndexParams.builder().build())
                      .build(),
                  false));
      built.add(nameFor(column));
      LOG.info(
          "Built key index {} over column '{}' of {} ({} rows) in {} ms",
          nameFor(column),
          column,
          dataset.uri(),
          dataset.countRows(),
          (System.nanoTime() - start) / 1_000_000);
    }
    return built;
  }

  /**
   * Adds unindexed fragments to the key indexes once their rows pass {@link #MIN_UNINDEXED_ROWS}
   * and a tenth of the indexed rows. Never fails: a lookup stays correct without it (it scans the
   * unindexed fragments), so a failure is logged and the next call tries again.
   *
   * @return whether the indexes were brought up to date (a new table version)
   */
  public static boolean upkeep(Dataset dataset, PrimaryKey key) {
    try {
      Map<String, ScalarIndex> indexes = of(dataset, key);
      if (indexes.isEmpty()) {
        return false;
      }
      Set<Integer> covered = coveredFragments(dataset, key);
      long indexed = 0;
      long unindexed = 0;
      for (Fragment fragment : dataset.getFragments()) {
        long rows = fragment.metadata().getPhysicalRows();
        if (covered.contains(fragment.getId())) {
          indexed += rows;
        } else {
          unindexed += rows;
        }
      }
      if (unindexed < Math.max(MIN_UNINDEXED_ROWS, indexed / 10)) {
        return false;
      }
      List<String> names = indexes.values().stream().map(ScalarIndex::name).toList();
      long start = System.nanoTime();
      dataset.optimizeIndices(OptimizeOptions.builder().indexNames(names).build());
      LOG.info(
          "Added {} unindexed rows of {} to its key indexes {} in {} ms",
          unindexed,
          dataset.uri(),
          names,
          (System.nanoTime() - start) / 1_000_000);
      return true;
    } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
      LOG.warn(
          "Cannot bring the key indexes of {} up to date; lookups scan the unindexed fragments"
              + " until the next try",
          dataset.uri(),
          e);
      return false;
    }
  }
}
