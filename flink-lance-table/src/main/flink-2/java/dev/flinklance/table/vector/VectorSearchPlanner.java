package dev.flinklance.table.vector;

import dev.flinklance.access.OpenTable;
import dev.flinklance.arrow.read.LanceReadSchema;
import dev.flinklance.errors.LanceCalls;
import dev.flinklance.index.VectorColumn;
import dev.flinklance.index.VectorIndex;
import dev.flinklance.index.VectorMetric;
import dev.flinklance.secrets.Secrets;
import dev.flinklance.source.LanceSourceConfig;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.api.config.ExecutionConfigOptions;
import org.apache.flink.table.api.config.VectorSearchRuntimeConfigOptions;
import org.apache.flink.table.connector.source.VectorSearchTableSource.VectorSearchContext;
import org.apache.flink.table.connector.source.VectorSearchTableSource.VectorSearchRuntimeProvider;
import org.apache.flink.table.connector.source.search.AsyncVectorSearchFunctionProvider;
import org.apache.flink.table.connector.source.search.VectorSearchFunctionProvider;
import org.apache.flink.table.types.logical.RowType;

/**
 * Plans one {@code VECTOR_SEARCH} over a Lance table: checks the searched column and the options
 * against the table version the query plans with, picks the metric (the option, else the column's
 * index's, else l2), and hands Flink the sync or the async function. Every problem is a {@link
 * ValidationException} naming the table and column, before the job runs.
 */
@Internal
public final class VectorSearchPlanner {

  private VectorSearchPlanner() {}

  /**
   * @param tableOptions the table's options ({@code vector-search.*} are read)
   * @param producedType the table's columns as the search returns them
   * @param filter a Lance SQL filter pushed into the table, or null
   */
  public static VectorSearchRuntimeProvider provider(
      LanceSourceConfig source,
      LanceReadSchema schema,
      Map<String, String> tableOptions,
      RowType producedType,
      String filter,
      VectorSearchContext context) {
    String uri = Secrets.redactUri(source.dataset().uri()); // for messages
    int[][] searchColumns = context.getSearchColumns();
    if (searchColumns.length != 1 || searchColumns[0].length != 1) {
      throw new ValidationException(
          "Lance table '" + uri + "': VECTOR_SEARCH searches exactly one top-level column");
    }
    String columnName = producedType.getFieldNames().get(searchColumns[0][0]);
    Map<String, String> queryConfig = context.runtimeConfig().toMap();
    VectorColumn column;
    VectorSearchConfig config;
    try {
      column = VectorColumn.of(schema, columnName);
      config = VectorSearchConfig.from(tableOptions, queryConfig);
    } catch (IllegalArgumentException e) {
      throw new ValidationException("Lance table '" + uri + "': " + e.getMessage(), e);
    }
    VectorMetric metric = metric(source, column, config.metric());
    VectorSearchSpec spec =
        new VectorSearchSpec(
            source.dataset(),
            source.version(),
            source.tag(),
            column,
            producedType,
            filter,
            config.withMetric(metric));
    Configuration flinkConfig = Configuration.fromMap(queryConfig);
    if (flinkConfig.get(VectorSearchRuntimeConfigOptions.ASYNC) == Boolean.TRUE) {
      int inFlight =
          flinkConfig
              .getOptional(VectorSearchRuntimeConfigOptions.ASYNC_MAX_CONCURRENT_OPERATIONS)
              .orElse(
                  ExecutionConfigOptions.TABLE_EXEC_ASYNC_VECTOR_SEARCH_MAX_CONCURRENT_OPERATIONS
                      .defaultValue());
      return AsyncVectorSearchFunctionProvider.of(
          new LanceAsyncVectorSearchFunction(spec, inFlight));
    }
    return VectorSearchFunctionProvider.of(new LanceVectorSearchFunction(spec));
  }

  /** The metric to search with; one the column's index was not built for is an error. */
  private static VectorMetric metric(
      LanceSourceConfig source, VectorColumn column, VectorMetric asked) {
    Optional<VectorIndex> index =
        LanceCalls.call(
            source.dataset().uri(),
            "cannot read the indexes of column '" + column.name() + "'",
            () -> {
              try (OpenTable read =
                  OpenTable.at(source.dataset(), source.version(), source.tag())) {
                return VectorIndex.on(read.dataset(), column.name());
              }
            });
    if (index.isEmpty()) {
      return asked == null ? VectorMetric.L2 : asked;
    }
    VectorIndex found = index.get();
    if (asked == null) {
      return found.metric().orElse(VectorMetric.L2);
    }
    if (found.metric().filter(asked::equals).isEmpty()) {
      throw new ValidationException(
          String.format(
              "Lance table '%s': column '%s' has the %s index '%s', built for the %s metric, but"
                  + " '%s' is %s. Search with %s (leave the option unset), or build an index for"
                  + " %s (CALL <catalog>.sys.create_vector_index(..., 'metric=%s'))",
              source.dataset(),
              column.name(),
              found.type(),
              found.name(),
              found.lanceMetric(),
              VectorSearchOptions.METRIC.key(),
              asked,
              found.lanceMetric(),
              asked,
              asked));
    }
    return asked;
  }
}
