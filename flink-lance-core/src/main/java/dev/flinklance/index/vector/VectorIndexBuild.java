package dev.flinklance.index.vector;

import static dev.flinklance.index.vector.VectorIndexOptions.HNSW_EF_CONSTRUCTION;
import static dev.flinklance.index.vector.VectorIndexOptions.HNSW_M;
import static dev.flinklance.index.vector.VectorIndexOptions.MAX_ITERATIONS;
import static dev.flinklance.index.vector.VectorIndexOptions.METRIC;
import static dev.flinklance.index.vector.VectorIndexOptions.NAME;
import static dev.flinklance.index.vector.VectorIndexOptions.NUM_BITS;
import static dev.flinklance.index.vector.VectorIndexOptions.NUM_PARTITIONS;
import static dev.flinklance.index.vector.VectorIndexOptions.NUM_SUB_VECTORS;
import static dev.flinklance.index.vector.VectorIndexOptions.REPLACE;
import static dev.flinklance.index.vector.VectorIndexOptions.SAMPLE_RATE;

import dev.flinklance.access.OpenTable;
import dev.flinklance.access.TableRef;
import dev.flinklance.arrow.read.LanceReadSchema;
import dev.flinklance.index.IndexBuilds;
import dev.flinklance.index.VectorColumn;
import dev.flinklance.index.VectorIndex;
import dev.flinklance.index.VectorMetric;
import dev.flinklance.index.vector.VectorIndexSpec.Hnsw;
import dev.flinklance.index.vector.VectorIndexSpec.Ivf;
import dev.flinklance.index.vector.VectorIndexSpec.Quantization;
import dev.flinklance.index.vector.VectorIndexType.Quantizer;
import java.util.List;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.lance.Dataset;

/**
 * One validated index build: its type and {@link VectorIndexOptions}, checked here, once, with a
 * message naming the option; what depends on the table (partitions and sub-vectors against rows and
 * dimension) is checked by {@link #spec}. {@link #create} runs it: Lance trains the index on the
 * rows of the latest version and commits it as a new version; rows appended meanwhile, and later,
 * are searched exactly until an index optimisation ({@link VectorIndexUpkeep}) adds them.
 */
@Internal
public record VectorIndexBuild(
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
   * What a build made.
   *
   * @param rowsIndexed rows the index covers
   * @param tableVersion the table version that holds the index
   */
  public record Built(VectorIndex index, long rowsIndexed, long tableVersion) {}

  /**
   * @param type one of {@link VectorIndexType}, case-insensitive
   * @param options {@link VectorIndexOptions} keys
   * @throws IllegalArgumentException naming an unknown option, an invalid value or an option the
   *     type does not use
   */
  public static VectorIndexBuild of(String column, String type, Map<String, String> options) {
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

  /**
   * Builds (or, with {@code replace}, rebuilds) the index on the latest version and waits for it.
   *
   * @throws IllegalArgumentException naming the table, for a column that is not a vector column, a
   *     table without rows, an index of that name without {@code replace}, or options the table
   *     cannot take; nothing is built
   * @throws dev.flinklance.errors.LanceDatasetException naming the table if Lance fails
   */
  public Built create(TableRef table) {
    return IndexBuilds.onLatest(
        table,
        "cannot build a vector index on column '" + column + "'",
        open -> {
          Dataset dataset = open.dataset();
          VectorColumn vectors = VectorColumn.of(LanceReadSchema.of(dataset), column);
          long rows = dataset.countRows();
          if (rows == 0) {
            throw new IllegalArgumentException(
                "the table has no rows to train a vector index on column '" + column + "' with");
          }
          if (!replace && dataset.listIndexes().contains(name)) {
            throw new IllegalArgumentException(
                String.format(
                    "an index named '%s' exists; set '%s' = 'true' to rebuild it",
                    name, REPLACE.key()));
          }
          spec(vectors, rows).build(dataset, column, name, replace);
          return built(open);
        });
  }

  private Built built(OpenTable open) {
    open.moveToLatest();
    Dataset dataset = open.dataset();
    VectorIndex index =
        VectorIndex.of(dataset).stream()
            .filter(i -> i.name().equals(name))
            .findFirst()
            .orElseThrow(() -> new IllegalStateException("the new index is not in the table"));
    return new Built(index, IndexBuilds.rowsIndexed(dataset, name), dataset.version());
  }

  /** What Lance builds for a table of {@code rows} rows of this column. */
  VectorIndexSpec spec(VectorColumn vectors, long rows) {
    int parts = partitions != null ? partitions : (int) Math.max(1, Math.round(Math.sqrt(rows)));
    require(
        parts <= rows,
        NUM_PARTITIONS.key(),
        String.format("%d is more than the table's %d rows", parts, rows));
    Quantization quantization =
        switch (type.quantizer()) {
          case PQ ->
              new Quantization(
                  subVectors(vectors.dimension()), bitsOr(8), iterations, sampleRate, null);
          case SQ -> new Quantization(null, bitsOr(8), null, sampleRate, null);
          case RQ -> new Quantization(null, bitsOr(1), null, null, null);
          case NONE -> null;
        };
    return new VectorIndexSpec(
        type,
        metric,
        new Ivf(parts, null, iterations, sampleRate),
        quantization,
        type.hnsw() ? new Hnsw(hnswM, hnswEfConstruction, null, null) : null);
  }

  private int subVectors(int dimension) {
    int count = subVectors != null ? subVectors : defaultSubVectors(dimension);
    require(
        dimension % count == 0,
        NUM_SUB_VECTORS.key(),
        String.format("%d does not divide the dimension %d", count, dimension));
    return count;
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
