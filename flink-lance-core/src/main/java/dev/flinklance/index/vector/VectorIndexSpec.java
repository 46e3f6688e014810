package dev.flinklance.index.vector;

import dev.flinklance.index.VectorMetric;
import java.util.List;
import java.util.Optional;
import java.util.function.IntConsumer;
import org.lance.Dataset;
import org.lance.index.IndexParams;
import org.lance.index.vector.HnswBuildParams;
import org.lance.index.vector.IvfBuildParams;
import org.lance.index.vector.PQBuildParams;
import org.lance.index.vector.RQBuildParams;
import org.lance.index.vector.SQBuildParams;
import org.lance.index.vector.VectorIndexParams;

/**
 * Everything Lance builds a vector index from: type, metric, IVF partitions, quantizer and HNSW
 * graph. The one place a vector index's {@link IndexParams} are assembled: a build from the user's
 * options ({@link VectorIndexBuild}) and a rebuild from what Lance recorded of an index ({@link
 * VectorIndexRebuild}) differ only in where the values come from. A null training parameter is left
 * to Lance's default.
 *
 * @param quantization null for a type without a quantizer (IVF_FLAT)
 * @param hnsw null for a type without HNSW graphs
 */
record VectorIndexSpec(
    VectorIndexType type, VectorMetric metric, Ivf ivf, Quantization quantization, Hnsw hnsw) {

  /**
   * @param centroids the partitions' centroids, one vector after the other, to build on instead of
   *     training them; null to train
   */
  record Ivf(int partitions, float[] centroids, Integer maxIterations, Integer sampleRate) {}

  /**
   * @param subVectors PQ's only
   * @param maxIterations PQ's only
   * @param sampleRate PQ's and SQ's
   * @param kmeansRedos PQ's only
   */
  record Quantization(
      Integer subVectors,
      int bits,
      Integer maxIterations,
      Integer sampleRate,
      Integer kmeansRedos) {}

  record Hnsw(Integer m, Integer efConstruction, Integer maxLevel, Integer prefetchDistance) {}

  /** Builds the index (one CreateIndex commit) and waits for it. */
  void build(Dataset dataset, String column, String name, boolean replace) {
    dataset.createIndex(List.of(column), type.toLance(), Optional.of(name), toLance(), replace);
  }

  IndexParams toLance() {
    IvfBuildParams.Builder partitions = new IvfBuildParams.Builder();
    partitions.setNumPartitions(ivf.partitions());
    if (ivf.centroids() != null) {
      partitions.setCentroids(ivf.centroids());
    }
    ifSet(ivf.maxIterations(), partitions::setMaxIters);
    ifSet(ivf.sampleRate(), partitions::setSampleRate);
    VectorIndexParams.Builder params =
        new VectorIndexParams.Builder(partitions.build()).setDistanceType(metric.toLance());
    switch (type.quantizer()) {
      case PQ -> {
        PQBuildParams.Builder pq =
            new PQBuildParams.Builder()
                .setNumSubVectors(quantization.subVectors())
                .setNumBits(quantization.bits());
        ifSet(quantization.maxIterations(), pq::setMaxIters);
        ifSet(quantization.sampleRate(), pq::setSampleRate);
        ifSet(quantization.kmeansRedos(), pq::setKmeansRedos);
        params.setPqParams(pq.build());
      }
      case SQ -> {
        SQBuildParams.Builder sq =
            new SQBuildParams.Builder().setNumBits((short) quantization.bits());
        ifSet(quantization.sampleRate(), sq::setSampleRate);
        params.setSqParams(sq.build());
      }
      case RQ ->
          params.setRqParams(
              new RQBuildParams.Builder().setNumBits((byte) quantization.bits()).build());
      case NONE -> {}
    }
    if (type.hnsw()) {
      HnswBuildParams.Builder graph = new HnswBuildParams.Builder();
      ifSet(hnsw.m(), graph::setM);
      ifSet(hnsw.efConstruction(), graph::setEfConstruction);
      ifSet(hnsw.maxLevel(), level -> graph.setMaxLevel((short) level));
      ifSet(hnsw.prefetchDistance(), graph::setPrefetchDistance);
      params.setHnswParams(graph.build());
    }
    return IndexParams.builder().setVectorIndexParams(params.build()).build();
  }

  private static void ifSet(Integer value, IntConsumer setter) {
    if (value != null) {
      setter.accept(value);
    }
  }
}
