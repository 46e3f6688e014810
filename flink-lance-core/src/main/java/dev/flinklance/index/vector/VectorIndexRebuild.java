package dev.flinklance.index.vector;

import dev.flinklance.index.VectorIndex;
import dev.flinklance.index.VectorMetric;
import dev.flinklance.index.vector.VectorIndexSpec.Hnsw;
import dev.flinklance.index.vector.VectorIndexSpec.Ivf;
import dev.flinklance.index.vector.VectorIndexSpec.Quantization;
import java.util.Map;
import java.util.Optional;
import org.lance.Dataset;
import org.lance.util.JsonUtils;

/**
 * A vector index built anew over the table's live rows, under its name, of its type, with the
 * parameters Lance recorded in its details (quantizer, graph, training) and on its IVF centroids
 * (from Lance's statistics), as Lance's own optimisation would keep them. Lance's optimisation
 * ({@code optimizeIndices}, also with {@code retrain}) fails on the indexes that need the rebuild
 * (see {@link IndexedDeletions}). Reusing the centroids also saves most of the time: lance-core
 * 7.0.0 can train IVF centroids on a table with deleted rows 20 times slower than on one without
 * (IVF_FLAT, 200,000 rows of 128 dimensions, every 8th deleted: 157 s instead of 7.7 s; 6.3 s on
 * the old centroids).
 */
final class VectorIndexRebuild {
  private VectorIndexRebuild() {}

  static void run(Dataset dataset, VectorIndex index) {
    spec(index, dataset.getIndexStatistics(index.name()), dataset.countRows())
        .build(dataset, index.column(), index.name(), true);
  }

  /**
   * @param statistics Lance's statistics of the index
   * @param rows the table's live rows
   * @throws IllegalArgumentException for a type or metric the connector does not build, or details
   *     without the parameters of the index's type
   */
  static VectorIndexSpec spec(VectorIndex index, Map<String, Object> statistics, long rows) {
    VectorIndexType type = VectorIndexType.of(index.type());
    VectorMetric metric =
        index
            .metric()
            .orElseThrow(
                () -> new IllegalArgumentException("unknown metric " + index.lanceMetric()));
    Map<String, Object> details = JsonUtils.fromJson(index.detailsJson());
    Map<?, ?> hints = section(details, "runtime_hints");
    int partitions = IndexStatistics.partitions(statistics);
    Optional<float[]> centroids = IndexStatistics.centroids(statistics);
    Integer maxIterations = hint(hints, "lance.ivf.max_iters");
    Integer sampleRate = hint(hints, "lance.ivf.sample_rate");
    Ivf ivf =
        centroids.isPresent() && rows >= partitions
            ? new Ivf(partitions, centroids.get(), maxIterations, sampleRate)
            // trained anew; k-means needs a row per partition, and deletes may have left fewer
            : new Ivf(
                (int) Math.max(1, Math.min(partitions, rows)), null, maxIterations, sampleRate);
    Map<?, ?> compression = section(details, "compression");
    Quantization quantization =
        switch (type.quantizer()) {
          case PQ ->
              new Quantization(
                  number(compression, "num_sub_vectors"),
                  number(compression, "num_bits"),
                  hint(hints, "lance.pq.max_iters"),
                  hint(hints, "lance.pq.sample_rate"),
                  hint(hints, "lance.pq.kmeans_redos"));
          case SQ ->
              new Quantization(
                  null,
                  number(compression, "num_bits"),
                  null,
                  hint(hints, "lance.sq.sample_rate"),
                  null);
          case RQ -> new Quantization(null, number(compression, "num_bits"), null, null, null);
          case NONE -> null;
        };
    Hnsw hnsw = null;
    if (type.hnsw()) {
      Map<?, ?> graph = section(details, "hnsw");
      hnsw =
          new Hnsw(
              number(graph, "max_connections"),
              number(graph, "construction_ef"),
              number(graph, "max_level"),
              hint(hints, "lance.hnsw.prefetch_distance"));
    }
    return new VectorIndexSpec(type, metric, ivf, quantization, hnsw);
  }

  private static Map<?, ?> section(Map<String, Object> details, String key) {
    return details.get(key) instanceof Map<?, ?> section ? section : Map.of();
  }

  private static int number(Map<?, ?> section, String key) {
    if (section.get(key) instanceof Number number) {
      return number.intValue();
    }
    throw new IllegalArgumentException("no " + key + " in the index details");
  }

  /** Lance records training parameters as strings ({@code "lance.ivf.max_iters":"50"}). */
  private static Integer hint(Map<?, ?> hints, String key) {
    return hints.get(key) == null ? null : Integer.valueOf(hints.get(key).toString());
  }
}
