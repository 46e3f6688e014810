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
 * A vector index built anew over the table's live rows, under its name, of its type and with the
 * parameters Lance recorded in its details (quantizer, graph, training) and statistics (the IVF
 * partitions). Lance's own retraining ({@code optimizeIndices} with {@code retrain}) would keep the
 * parameters too, but fails on the indexes that need the rebuild (see {@link IndexedDeletions}).
 */
final class VectorIndexRebuild {
  private VectorIndexRebuild() {}

  static void run(Dataset dataset, VectorIndex index) {
    int partitions = IndexStatistics.partitions(dataset.getIndexStatistics(index.name()));
    // k-means needs a row per partition; deletes may have left fewer
    long rows = Math.max(1, dataset.countRows());
    dataset.createIndex(
        List.of(index.column()),
        IndexType.valueOf(index.type()),
        Optional.of(index.name()),
        params(index, (int) Math.min(partitions, rows)),
        true);
  }

  /**
   * @throws IllegalArgumentException for a quantizer or metric lance-core 7.0.0 does not build
   */
  static IndexParams params(VectorIndex index, int partitions) {
    Map<String, Object> details = JsonUtils.fromJson(index.detailsJson());
    Map<?, ?> hints = section(details, "runtime_hints");
    IvfBuildParams.Builder ivf = new IvfBuildParams.Builder().setNumPartitions(partitions);
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
