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
import java.util.UUID;
import org.apache.flink.annotation.Internal;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.index.Index;
import org.lance.index.IndexOptions;
import org.lance.index.IndexParams;
import org.lance.index.IndexType;
import org.lance.index.scalar.BTreeIndexParams;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The BTree indexes over a primary key's columns (one per column), through which {@link KeyLookup}
 * finds the rows of a few keys without scanning the table. Rows appended after an index was built
 * or last brought up to date are not in it (a lookup scans their fragments); {@link #upkeep} adds
 * them as a new segment of the index once they are many.
 */
@Internal
public final class KeyIndex {
  private static final Logger LOG = LoggerFactory.getLogger(KeyIndex.class);

  /**
   * Unindexed rows that make a new segment of a key index: a lookup scans them next to the index
   * (cheap for this many, docs/lance-core.md), and a segment built for them costs what they hold. A
   * fixed number, not a share of the table: what a commit scans stays the same at any size.
   */
  static final long MIN_UNINDEXED_ROWS = 100_000;

  /**
   * Segments a key index keeps before the smallest are rebuilt as one: each is one more BTree every
   * lookup consults.
   */
  static final int MAX_SEGMENTS = 8;

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
                  List.of(column), IndexType.BTREE, Optional.of(nameFor(column)), params(), false));
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
   * Adds the unindexed fragments to each key index as a new segment once they hold {@link
   * #MIN_UNINDEXED_ROWS} rows, and rebuilds the smallest segments as one once there are more than
   * {@link #MAX_SEGMENTS} ({@link KeySegments}): a cost that follows the rows appended, not the
   * table. The segments of one index are committed together (one CreateIndex, which does not
   * conflict with concurrent appends or upserts; it preempts a compaction of the same fragments,
   * which plans again). Never fails: a lookup stays correct without it (it scans the unindexed
   * fragments), so a failure is logged and the next call tries again.
   *
   * @return whether an index changed (a new table version)
   */
  public static boolean upkeep(Dataset dataset, PrimaryKey key) {
    return upkeep(dataset, key, MIN_UNINDEXED_ROWS, MAX_SEGMENTS);
  }

  static boolean upkeep(Dataset dataset, PrimaryKey key, long minNewRows, int maxSegments) {
    try {
      Map<String, ScalarIndex> indexes = of(dataset, key);
      Map<Integer, Long> liveRows = new HashMap<>();
      for (Fragment fragment : dataset.getFragments()) {
        liveRows.put(fragment.getId(), fragment.metadata().getPhysicalRows());
      }
      boolean changed = false;
      for (ScalarIndex index : indexes.values()) {
        KeySegments plan = KeySegments.plan(index.segments(), liveRows, minNewRows, maxSegments);
        if (!plan.isEmpty()) {
          build(dataset, index, plan);
          changed = true;
        }
      }
      return changed;
    } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
      LOG.warn(
          "Cannot bring the key indexes of {} up to date; lookups scan the unindexed fragments"
              + " until the next try",
          dataset.uri(),
          e);
      return false;
    }
  }

  private static void build(Dataset dataset, ScalarIndex index, KeySegments plan) {
    long start = System.nanoTime();
    List<Index> segments = new ArrayList<>();
    for (List<Integer> fragments : plan.builds()) {
      segments.add(
          dataset.createIndex(
              IndexOptions.builder(List.of(index.column()), IndexType.BTREE, params())
                  .withIndexName(index.name())
                  .withIndexUUID(UUID.randomUUID().toString())
                  .withFragmentIds(fragments)
                  // builds a segment without committing it; the name is the index's own
                  .replace(true)
                  .build()));
    }
    dataset.commitExistingIndexSegments(index.name(), index.column(), segments);
    LOG.info(
        "Key index {} of {}: built segments over fragments {} in {} ms",
        index.name(),
        dataset.uri(),
        plan.builds(),
        (System.nanoTime() - start) / 1_000_000);
  }

  private static IndexParams params() {
    return IndexParams.builder().setScalarIndexParams(BTreeIndexParams.builder().build()).build();
  }
}
