package dev.flinklance.index.scalar;

import dev.flinklance.arrow.read.LanceReadSchema;
import dev.flinklance.index.KeyIndex;
import dev.flinklance.index.ScalarIndex;
import dev.flinklance.key.KeyType;
import dev.flinklance.key.PrimaryKey;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.types.logical.RowType;
import org.lance.Dataset;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings the table's scalar (BTree) indexes up to date (the compaction pass runs it after every
 * pass), by the rule the upsert sink keeps its key index with ({@link KeyIndex#upkeep}): the
 * fragments appended since an index was last brought up to date are added once they hold 100,000
 * rows or a tenth of the indexed rows; until then lookups and upserts by the column scan them next
 * to the index. Adding them on every pass rewrites the whole index each time, and under frequent
 * upserts the compactions racing those index commits stop landing (measured with
 * UpsertCompactionITCase: 170 fragments instead of at most 85). Lance's compaction itself keeps an
 * index over the fragments it rewrites. Never fails the pass: the indexes stay as they are and the
 * next pass tries again.
 */
@Internal
public final class ScalarIndexUpkeep {
  private static final Logger LOG = LoggerFactory.getLogger(ScalarIndexUpkeep.class);

  private ScalarIndexUpkeep() {}

  /**
   * @return the columns whose indexes were brought up to date
   */
  public static List<String> run(Dataset dataset) {
    List<String> updated = new ArrayList<>();
    try {
      dataset.checkoutLatest();
      List<String> columns =
          ScalarIndex.btreesOf(dataset).stream()
              .filter(index -> index.missesFragmentsOf(dataset))
              .map(ScalarIndex::column)
              .distinct()
              .toList();
      if (columns.isEmpty()) {
        return updated;
      }
      LanceReadSchema schema = LanceReadSchema.of(dataset);
      for (String column : columns) {
        RowType type = schema.rowType(List.of(column));
        if (KeyType.supports(type.getTypeAt(0))
            && KeyIndex.upkeep(dataset, PrimaryKey.of(type, List.of(column), dataset.uri()))) {
          updated.add(column);
          dataset.checkoutLatest();
        }
      }
    } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
      LOG.warn(
          "Cannot bring the scalar indexes of {} up to date; lookups by their columns scan the new"
              + " fragments until the next compaction pass",
          dataset.uri(),
          e);
    }
    return updated;
  }
}
