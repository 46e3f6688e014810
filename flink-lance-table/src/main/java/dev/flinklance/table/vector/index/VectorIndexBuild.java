package dev.flinklance.table.vector.index;

import static dev.flinklance.table.vector.index.VectorIndexOptions.HNSW_EF_CONSTRUCTION;
import static dev.flinklance.table.vector.index.VectorIndexOptions.HNSW_M;
import static dev.flinklance.table.vector.index.VectorIndexOptions.MAX_ITERATIONS;
import static dev.flinklance.table.vector.index.VectorIndexOptions.METRIC;
import static dev.flinklance.table.vector.index.VectorIndexOptions.NAME;
import static dev.flinklance.table.vector.index.VectorIndexOptions.NUM_BITS;
import static dev.flinklance.table.vector.index.VectorIndexOptions.NUM_PARTITIONS;
import static dev.flinklance.table.vector.index.VectorIndexOptions.NUM_SUB_VECTORS;
import static dev.flinklance.table.vector.index.VectorIndexOptions.REPLACE;
import static dev.flinklance.table.vector.index.VectorIndexOptions.SAMPLE_RATE;

import dev.flinklance.index.VectorMetric;
import dev.flinklance.table.vector.VectorColumn;
import dev.flinklance.table.vector.index.VectorIndexType.Quantizer;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.lance.index.IndexParams;
import org.lance.index.vector.HnswBuildParams;
import org.lance.index.vector.IvfBuildParams;
import org.lance.index.vector.PQBuildParams;
import org.lance.index.vector.RQBuildParams;
import org.lance.index.vector.SQBuildParams;
import org.lance.index.vector.VectorIndexParams;

/**
 * One validated index build: its type and {@link VectorIndexOptions}, checked here, once, with a
 * message naming the option; what depends on the table (partitions and sub-vectors against rows and
 * dimension) is checked by {@link #params}.
 */
record VectorIndexBuild(
    String column,
    VectorIndexType type,
    VectorMetric metric,
    String name,
    boolean replace,
    Integer partitions,
    Integer subVectors,
    Integer bits,
    Integer iterations,
    Integer sampleRate,
    Integer hnswM,
    Integer hnswEfConstruction) {

  private static final List<ConfigOption<?>> OPTIONS =
      List.of(
          METRIC,
          NAME,
          REPLACE,
          NUM_PARTITIONS,
          NUM_SUB_VECTORS,
          NUM_BITS,
          MAX_ITERATIONS,
          SAMPLE_RATE,
          HNSW_M,
          HNSW_EF_CONSTRUCTION);

  /**
   * @throws IllegalArgumentException naming an unknown option, an invalid value or an option the
   *     type does not use
   */
  static VectorIndexBuild of(String column, String type, Map<String, String> options) {
    VectorIndexType indexType = VectorIndexType.of(type);
    for (String key : options.keySet()) {
      ConfigOption<?> option =
          OPTIONS.stream()
              .filter(o -> o.key().equals(key))
              .findFirst()
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          String.format(
                              "Unknown vector index option '%s'; the options are %s",
                              key, OPTIONS.stream().map(ConfigOption::key).toList())));
      require(applies(option, indexType), key, "does not apply to " + indexType + " indexes");
    }
    Configuration config = Configuration.fromMap(options);
    VectorIndexBuild build =
        new VectorIndexBuild(
            column,
            indexType,
            parse(config, METRIC),
            config.getOptional(NAME).orElse(column + "_idx"),
            parse(config, REPLACE),
            positive(config, NUM_PARTITIONS),
            positive(config, NUM_SUB_VECTORS),
            positive(config, NUM_BITS),
            positive(config, MAX_ITERATIONS),
            positive(config, SAMPLE_RATE),
            positive(config, HNSW_M),
            positive(config, HNSW_EF_CONSTRUCTION));
    require(!build.name().isBlank(), NAME.key(), "must not be blank");
    return build;
  }

  /** Lance's build parameters for a table of {@code rows} rows of this column. */
  IndexParams params(VectorColumn vectors, long rows) {
    int parts = partitions != null ? partitions : (int) Math.max(1, Math.round(Math.sqrt(rows)));
    require(
        parts <= rows,
        NUM_PARTITIONS.key(),
        String.format("%d is more than the table's %d rows", parts, rows));
    IvfBuildParams.Builder ivf = new IvfBuildParams.Builder().setNumPartitions(parts);
    if (iterations != null) {
      ivf.setMaxIters(iterations);
    }
    if (sampleRate != null) {
      ivf.setSampleRate(sampleRate);
    }
    VectorIndexParams.Builder params =
        new VectorIndexParams.Builder(ivf.build()).setDistanceType(metric.toLance());
    switch (type.quantizer()) {
      case PQ -> params.setPqParams(pq(vectors.dimension()));
      case SQ -> params.setSqParams(sq());
      case RQ ->
          params.setRqParams(new RQBuildParams.Builder().setNumBits((byte) bitsOr(1)).build());
      case NONE -> {}
    }
    if (type.hnsw()) {
      HnswBuildParams.Builder hnsw = new HnswBuildParams.Builder();
      if (hnswM != null) {
        hnsw.setM(hnswM);
      }
      if (hnswEfConstruction != null) {
        hnsw.setEfConstruction(hnswEfConstruction);
      }
      params.setHnswParams(hnsw.build());
    }
    return IndexParams.builder().setVectorIndexParams(params.build()).build();
  }

  private PQBuildParams pq(int dimension) {
    int count = subVectors != null ? subVectors : defaultSubVectors(dimension);
    require(
        dimension % count == 0,
        NUM_SUB_VECTORS.key(),
        String.format("%d does not divide the dimension %d", count, dimension));
    PQBuildParams.Builder pq = new PQBuildParams.Builder().setNumSubVectors(count);
    pq.setNumBits(bitsOr(8));
    if (iterations != null) {
      pq.setMaxIters(iterations);
    }
    if (sampleRate != null) {
      pq.setSampleRate(sampleRate);
    }
    return pq.build();
  }

  private SQBuildParams sq() {
    SQBuildParams.Builder sq = new SQBuildParams.Builder().setNumBits((short) bitsOr(8));
    if (sampleRate != null) {
      sq.setSampleRate(sampleRate);
    }
    return sq.build();
  }

  private int bitsOr(int fallback) {
    return bits == null ? fallback : bits;
  }

  private static int defaultSubVectors(int dimension) {
    for (int width : new int[] {8, 4, 2}) {
      if (dimension % width == 0) {
        return dimension / width;
      }
    }
    return 1;
  }

  private static boolean applies(ConfigOption<?> option, VectorIndexType type) {
    if (option == NUM_SUB_VECTORS) {
      return type.quantizer() == Quantizer.PQ;
    }
    if (option == NUM_BITS) {
      return type.quantizer() != Quantizer.NONE;
    }
    if (option == HNSW_M || option == HNSW_EF_CONSTRUCTION) {
      return type.hnsw();
    }
    return true;
  }

  private static <T> T parse(Configuration config, ConfigOption<T> option) {
    try {
      return config.get(option);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          String.format(
              "Invalid vector index option '%s': %s",
              option.key(), e.getCause() == null ? e.getMessage() : e.getCause().getMessage()),
          e);
    }
  }

  private static Integer positive(Configuration config, ConfigOption<Integer> option) {
    Integer value = parse(config, option);
    require(value == null || value > 0, option.key(), "must be positive, got " + value);
    return value;
  }

  private static void require(boolean condition, String key, String problem) {
    if (!condition) {
      throw new IllegalArgumentException(
          String.format("Invalid vector index option '%s': %s", key, problem));
    }
  }
}
