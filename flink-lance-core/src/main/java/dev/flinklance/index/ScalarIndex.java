package dev.flinklance.index;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.annotation.Internal;
import org.lance.Dataset;
import org.lance.index.IndexDescription;

/**
 * A BTree index of one table version over one column, as Lance describes it (lance-core 7.0.0:
 * {@code describeIndices}, type URL {@code .../BTreeIndexDetails}).
 *
 * @param fragmentIds the fragments the index covers (all its segments together); rows of other
 *     fragments are found by a scan
 */
@Internal
public record ScalarIndex(String name, String column, Set<Integer> fragmentIds) {
  private static final String BTREE_DETAILS = "BTreeIndexDetails";

  /** The BTree indexes of the dataset's version over one top-level column each. */
  public static List<ScalarIndex> btreesOf(Dataset dataset) {
    Map<Integer, String> topLevel = new HashMap<>();
    dataset.getLanceSchema().fields().forEach(f -> topLevel.put(f.getId(), f.getName()));
    List<ScalarIndex> indexes = new ArrayList<>();
    for (IndexDescription description : dataset.describeIndices()) {
      List<Integer> fieldIds = description.getFieldIds();
      if (description.getTypeUrl().endsWith(BTREE_DETAILS)
          && fieldIds.size() == 1
          && topLevel.containsKey(fieldIds.get(0))) {
        indexes.add(
            new ScalarIndex(
                description.getName(), topLevel.get(fieldIds.get(0)), coverage(description)));
      }
    }
    return indexes;
  }

  /** Whether some fragment of the dataset's version is not in the index (new since its build). */
  public boolean missesFragmentsOf(Dataset dataset) {
    return dataset.getFragments().stream().anyMatch(f -> !fragmentIds.contains(f.getId()));
  }

  private static Set<Integer> coverage(IndexDescription description) {
    Set<Integer> fragments = new HashSet<>();
    description.getSegments().forEach(segment -> segment.fragments().ifPresent(fragments::addAll));
    return Set.copyOf(fragments);
  }
}
