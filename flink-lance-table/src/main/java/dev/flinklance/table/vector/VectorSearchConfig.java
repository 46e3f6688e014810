package dev.flinklance.table.vector;

import static dev.flinklance.table.vector.VectorSearchOptions.EF;
import static dev.flinklance.table.vector.VectorSearchOptions.METRIC;
import static dev.flinklance.table.vector.VectorSearchOptions.NPROBES;
import static dev.flinklance.table.vector.VectorSearchOptions.PREFILTER;
import static dev.flinklance.table.vector.VectorSearchOptions.PREFIX;
import static dev.flinklance.table.vector.VectorSearchOptions.REFINE_FACTOR;
import static dev.flinklance.table.vector.VectorSearchOptions.REFRESH_INTERVAL;

import dev.flinklance.config.OptionChecks;
import dev.flinklance.index.VectorMetric;
import java.io.Serializable;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;

/**
 * The validated {@code vector-search.*} settings of one search. Every option is checked here, once,
 * with a message naming it; a table's options and a query's {@code CONFIG} map both come through
 * {@link #from}.
 *
 * @param metric the metric asked for, or null for the index's (l2 without an index)
 * @param refineFactor null for no refinement
 * @param ef null for Lance's default
 */
@Internal
public record VectorSearchConfig(
    VectorMetric metric,
    int nprobes,
    Integer refineFactor,
    Integer ef,
    boolean prefilter,
    Duration refreshInterval)
    implements Serializable {

  private static final String KIND = "vector search";
  private static final List<ConfigOption<?>> OPTIONS =
      List.of(METRIC, NPROBES, REFINE_FACTOR, EF, PREFILTER, REFRESH_INTERVAL);

  /**
   * @param tableOptions the table's options (other keys are ignored)
   * @param queryConfig one query's {@code CONFIG} map: its {@code vector-search.*} keys win over
   *     the table's; Flink's own keys ({@code async}, {@code timeout}, ...) are left to Flink
   * @throws IllegalArgumentException naming the first invalid option
   */
  public static VectorSearchConfig from(
      Map<String, String> tableOptions, Map<String, String> queryConfig) {
    Configuration options = Configuration.fromMap(tableOptions);
    queryConfig.forEach(
        (key, value) -> {
          if (key.startsWith(PREFIX)) {
            require(
                OPTIONS.stream().anyMatch(option -> option.key().equals(key)),
                key,
                "is not a vector search option; they are "
                    + OPTIONS.stream().map(ConfigOption::key).toList());
            options.setString(key, value);
          }
        });
    VectorMetric metric = parse(options, METRIC);
    int nprobes = parse(options, NPROBES);
    require(nprobes > 0, NPROBES.key(), "must be positive, got " + nprobes);
    Integer refineFactor = parse(options, REFINE_FACTOR);
    require(
        refineFactor == null || refineFactor > 0,
        REFINE_FACTOR.key(),
        "must be positive, got " + refineFactor);
    Integer ef = parse(options, EF);
    require(ef == null || ef > 0, EF.key(), "must be positive, got " + ef);
    Duration refresh = parse(options, REFRESH_INTERVAL);
    require(!refresh.isNegative(), REFRESH_INTERVAL.key(), "must not be negative");
    return new VectorSearchConfig(
        metric, nprobes, refineFactor, ef, parse(options, PREFILTER), refresh);
  }

  /** The same settings with the metric the search uses. */
  public VectorSearchConfig withMetric(VectorMetric resolved) {
    return new VectorSearchConfig(resolved, nprobes, refineFactor, ef, prefilter, refreshInterval);
  }

  private static <T> T parse(Configuration options, ConfigOption<T> option) {
    return OptionChecks.parse(options, option, KIND);
  }

  private static void require(boolean condition, String key, String problem) {
    OptionChecks.require(condition, key, KIND, problem);
  }
}
