package dev.flinklance.index.vector;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

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

  /** IVF partitions of the index (of its segment with the most). */
  static int partitions(Map<String, Object> statistics) {
    return segmentPartitions(largest(statistics));
  }

  /**
   * The IVF centroids of the segment with the most partitions, one vector after the other; empty if
   * the statistics leave them out (lance-core 7.0.0 includes them unless {@code
   * LANCE_INCLUDE_VECTOR_CENTROIDS=false}).
   */
  static Optional<float[]> centroids(Map<String, Object> statistics) {
    if (!(largest(statistics).get("centroids") instanceof List<?> centroids)
        || centroids.isEmpty()) {
      return Optional.empty();
    }
    int dimension = ((List<?>) centroids.get(0)).size();
    float[] flat = new float[centroids.size() * dimension];
    int i = 0;
    for (Object centroid : centroids) {
      for (Object value : (List<?>) centroid) {
        flat[i++] = ((Number) value).floatValue();
      }
    }
    return Optional.of(flat);
  }

  private static Map<?, ?> largest(Map<String, Object> statistics) {
    return segments(statistics).stream()
        .max(Comparator.comparingInt(IndexStatistics::segmentPartitions))
        .orElseThrow(() -> new IllegalArgumentException("the index has no segments"));
  }

  private static int segmentPartitions(Map<?, ?> segment) {
    return ((Number) segment.get("num_partitions")).intValue();
  }

  private static List<Map<?, ?>> segments(Map<String, Object> statistics) {
    return ((List<?>) statistics.get("indices"))
        .stream().<Map<?, ?>>map(s -> (Map<?, ?>) s).toList();
  }
}
