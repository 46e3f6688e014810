package dev.flinklance.compactor.index;

import dev.flinklance.index.VectorIndex;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntConsumer;
import org.lance.Dataset;
import org.lance.index.DistanceType;
import org.lance.index.IndexParams;
import org.lance.index.IndexType;
import org.lance.index.vector.HnswBuildParams;
import org.lance.index.vector.IvfBuildParams;
import org.lance.index.vector.PQBuildParams;
import org.lance.index.vector.RQBuildParams;
import org.lance.index.vector.SQBuildParams;
import org.lance.index.vector.VectorIndexParams;
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
    Map<String, Object> statistics = dataset.getIndexStatistics(index.name());
    int partitions = IndexStatistics.partitions(statistics);
    IvfBuildParams.Builder ivf = new IvfBuildParams.Builder();
    long rows = dataset.countRows();
    Optional<float[]> centroids = IndexStatistics.centroids(statistics);
    if (centroids.isPresent() && rows >= partitions) {
      ivf.setNumPartitions(partitions).setCentroids(centroids.get());
    } else {
      // trained anew; k-means needs a row per partition, and deletes may have left fewer
      ivf.setNumPartitions((int) Math.max(1, Math.min(partitions, rows)));
    }
    dataset.createIndex(
        List.of(index.column()),
        IndexType.valueOf(index.type()),
        Optional.of(index.name()),
        params(index, ivf),
        true);
  }

  /**
   * @param ivf the partitions (and centroids) to build with; the training parameters are added
   * @throws IllegalArgumentException for a quantizer or metric lance-core 7.0.0 does not build
   */
  static IndexParams params(VectorIndex index, IvfBuildParams.Builder ivf) {
    Map<String, Object> details = JsonUtils.fromJson(index.detailsJson());
    Map<?, ?> hints = section(details, "runtime_hints");
    hint(hints, "lance.ivf.max_iters", ivf::setMaxIters);
    hint(hints, "lance.ivf.sample_rate", ivf::setSampleRate);
    VectorIndexParams.Builder vector =
        new VectorIndexParams.Builder(ivf.build()).setDistanceType(distance(index.lanceMetric()));
    Map<?, ?> compression = section(details, "compression");
    Object quantizer = compression.get("type");
    if ("pq".equals(quantizer)) {
      PQBuildParams.Builder pq =
          new PQBuildParams.Builder()
              .setNumSubVectors(number(compression, "num_sub_vectors"))
              .setNumBits(number(compression, "num_bits"));
      hint(hints, "lance.pq.max_iters", pq::setMaxIters);
      hint(hints, "lance.pq.sample_rate", pq::setSampleRate);
      hint(hints, "lance.pq.kmeans_redos", pq::setKmeansRedos);
      vector.setPqParams(pq.build());
    } else if ("sq".equals(quantizer)) {
      SQBuildParams.Builder sq =
          new SQBuildParams.Builder().setNumBits((short) number(compression, "num_bits"));
      hint(hints, "lance.sq.sample_rate", sq::setSampleRate);
      vector.setSqParams(sq.build());
    } else if ("rq".equals(quantizer)) {
      vector.setRqParams(
          new RQBuildParams.Builder().setNumBits((byte) number(compression, "num_bits")).build());
    } else if (quantizer != null) {
      throw new IllegalArgumentException("unknown vector quantizer " + quantizer);
    }
    Map<?, ?> hnsw = section(details, "hnsw");
    if (!hnsw.isEmpty()) {
      HnswBuildParams.Builder graph =
          new HnswBuildParams.Builder()
              .setM(number(hnsw, "max_connections"))
              .setEfConstruction(number(hnsw, "construction_ef"))
              .setMaxLevel((short) number(hnsw, "max_level"));
      hint(hints, "lance.hnsw.prefetch_distance", graph::setPrefetchDistance);
      vector.setHnswParams(graph.build());
    }
    return IndexParams.builder().setVectorIndexParams(vector.build()).build();
  }

  private static DistanceType distance(String lanceMetric) {
    return Arrays.stream(DistanceType.values())
        .filter(type -> type.name().equalsIgnoreCase(lanceMetric))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("unknown metric " + lanceMetric));
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
  private static void hint(Map<?, ?> hints, String key, IntConsumer setter) {
    if (hints.get(key) != null) {
      setter.accept(Integer.parseInt(hints.get(key).toString()));
    }
  }
}
