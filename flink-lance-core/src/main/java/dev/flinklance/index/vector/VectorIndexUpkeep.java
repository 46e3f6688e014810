package dev.flinklance.index.vector;

import dev.flinklance.index.VectorIndex;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.lance.Dataset;
import org.lance.index.OptimizeOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings the table's vector indexes up to date (the compaction pass runs it after every pass):
 * fragments appended since an index was built (or last brought up to date) are searched exactly
 * until Lance's index optimisation adds them. Never fails the pass: the indexes stay as they are
 * and the next pass tries again. An index that holds deleted rows of a stable-row-id table is left
 * to the next pass's rebuild ({@link IndexedDeletions}).
 */
@Internal
public final class VectorIndexUpkeep {
  private static final Logger LOG = LoggerFactory.getLogger(VectorIndexUpkeep.class);

  private VectorIndexUpkeep() {}

  /**
   * @return the indexes brought up to date (none when every index covers every fragment)
   */
  public static List<String> run(Dataset dataset) {
    try {
      dataset.checkoutLatest();
      List<String> behind =
          VectorIndex.of(dataset).stream()
              .filter(index -> index.missesFragmentsOf(dataset))
              // Lance cannot optimise these; the next pass rebuilds them before it plans
              .filter(index -> !IndexedDeletions.holdsDeletedRows(dataset, index))
              .map(VectorIndex::name)
              .distinct()
              .toList();
      if (!behind.isEmpty()) {
        dataset.optimizeIndices(OptimizeOptions.builder().indexNames(behind).build());
        LOG.info("Added new fragments of {} to its vector indexes {}", dataset.uri(), behind);
      }
      return behind;
    } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
      LOG.warn(
          "Cannot bring the vector indexes of {} up to date; new rows are searched exactly until"
              + " the next compaction pass",
          dataset.uri(),
          e);
      return List.of();
    }
  }
}
