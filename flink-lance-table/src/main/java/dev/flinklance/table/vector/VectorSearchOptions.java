package dev.flinklance.table.vector;

import dev.flinklance.index.VectorMetric;
import java.time.Duration;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * How {@code VECTOR_SEARCH} searches a Lance table ({@code vector-search.*}): in the table's {@code
 * WITH (...)}, a catalog table's options, an {@code OPTIONS} hint, or one query's {@code CONFIG}
 * map ({@code MAP['vector-search.nprobes', '40']}), which wins over the others.
 */
@PublicEvolving
public final class VectorSearchOptions {
  public static final String PREFIX = "vector-search.";

  public static final ConfigOption<VectorMetric> METRIC =
      ConfigOptions.key(PREFIX + "metric")
          .enumType(VectorMetric.class)
          .noDefaultValue()
          .withDescription(
              "Distance metric: l2 (squared Euclidean distance), cosine (1 - cosine similarity)"
                  + " or dot (1 - dot product); the score column holds the distance, smaller is"
                  + " closer. Default: the metric of the column's vector index, l2 without one."
                  + " A metric other than the index's fails at planning.");

  public static final ConfigOption<Integer> NPROBES =
      ConfigOptions.key(PREFIX + "nprobes")
          .intType()
          .defaultValue(20)
          .withDescription(
              "IVF partitions an indexed search looks into. More find more of the true nearest"
                  + " neighbours and cost more time. (Lance's Java default, 1, misses many.)");

  public static final ConfigOption<Integer> REFINE_FACTOR =
      ConfigOptions.key(PREFIX + "refine-factor")
          .intType()
          .noDefaultValue()
          .withDescription(
              "An indexed search fetches refine-factor x k candidates and ranks them by their"
                  + " exact distance: needed for a high recall with a quantized (PQ, SQ) index."
                  + " Default: no refinement, distances are the index's approximations.");

  public static final ConfigOption<Integer> EF =
      ConfigOptions.key(PREFIX + "ef")
          .intType()
          .noDefaultValue()
          .withDescription(
              "Candidate list size of an HNSW search (IVF_HNSW_* indexes); at least k. Default:"
                  + " Lance's.");

  public static final ConfigOption<Boolean> PREFILTER =
      ConfigOptions.key(PREFIX + "prefilter")
          .booleanType()
          .defaultValue(true)
          .withDescription(
              "When the searched table is filtered (VECTOR_SEARCH over a query with a WHERE"
                  + " clause Lance evaluates): true searches only the rows that pass the filter,"
                  + " so k rows come back whenever k rows pass; false searches first and filters"
                  + " the k nearest afterwards, which is faster and may return fewer than k.");

  public static final ConfigOption<Duration> REFRESH_INTERVAL =
      ConfigOptions.key(PREFIX + "refresh-interval")
          .durationType()
          .defaultValue(Duration.ofMinutes(1))
          .withDescription(
              "How often a running search moves to the table's newest version, so that it"
                  + " finds rows committed since it started (each search task keeps one table"
                  + " version open). 0 never moves; scan.version and scan.tag pin the version.");

  private VectorSearchOptions() {}
}
