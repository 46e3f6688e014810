package dev.flinklance.compactor.index;

import java.util.List;
import java.util.Map;

/**
 * Lance's statistics of a vector index ({@code Dataset.getIndexStatistics}, lance-core 7.0.0): one
 * entry per segment in {@code indices}, each with its IVF {@code partitions} and their sizes.
 */
final class IndexStatistics {
  private IndexStatistics() {}

  /** Entries in the index files, deleted rows included. */
  static long entries(Map<String, Object> statistics) {
    long entries = 0;
    for (Map<?, ?> segment : segments(statistics)) {
      for (Object partition : (List<?>) segment.get("partitions")) {
        entries += ((Number) ((Map<?, ?>) partition).get("size")).longValue();
      }
    }
    return entries;
  }

  /** Live rows of the fragments the index covers. */
  static long indexedRows(Map<String, Object> statistics) {
    return ((Number) statistics.get("num_indexed_rows")).longValue();
  }

  /** IVF partitions of the index (of its largest segment). */
  static int partitions(Map<String, Object> statistics) {
    return segments(statistics).stream()
        .mapToInt(segment -> ((Number) segment.get("num_partitions")).intValue())
        .max()
        .orElseThrow(() -> new IllegalArgumentException("the index has no segments"));
  }

  private static List<Map<?, ?>> segments(Map<String, Object> statistics) {
    return ((List<?>) statistics.get("indices"))
        .stream().<Map<?, ?>>map(s -> (Map<?, ?>) s).toList();
  }
}
