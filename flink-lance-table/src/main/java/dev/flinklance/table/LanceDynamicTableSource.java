package dev.flinklance.table;

import dev.flinklance.arrow.read.LanceReadSchema;
import dev.flinklance.source.LanceScan;
import dev.flinklance.source.LanceSource;
import dev.flinklance.source.LanceSourceConfig;
import dev.flinklance.source.TableVersions;
import dev.flinklance.table.filter.LanceFilters;
import dev.flinklance.table.lookup.LookupPlanner;
import dev.flinklance.table.source.RowCountFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.InputFormatProvider;
import org.apache.flink.table.connector.source.LookupTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.SourceProvider;
import org.apache.flink.table.connector.source.abilities.SupportsAggregatePushDown;
import org.apache.flink.table.connector.source.abilities.SupportsFilterPushDown;
import org.apache.flink.table.connector.source.abilities.SupportsLimitPushDown;
import org.apache.flink.table.connector.source.abilities.SupportsProjectionPushDown;
import org.apache.flink.table.expressions.AggregateExpression;
import org.apache.flink.table.expressions.ResolvedExpression;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;

/**
 * The SQL face of {@link LanceSource}: a bounded scan, or a streaming read of appended rows or of
 * every change ({@code scan.streaming}, {@code scan.changelog}), with projection, filter and limit
 * (bounded only) pushed into Lance. Filters Lance cannot evaluate exactly as Flink does stay in
 * Flink. A bounded {@code COUNT(*)} without grouping is Lance's row count ({@link RowCountFormat}).
 * It is also the table {@code VECTOR_SEARCH} searches ({@link SearchableSource}, Flink 2.2+) and
 * the table a lookup join reads ({@link LookupPlanner}), with the projection and the pushed
 * filters.
 */
final class LanceDynamicTableSource
    implements ScanTableSource,
        SearchableSource,
        LookupTableSource,
        SupportsProjectionPushDown,
        SupportsFilterPushDown,
        SupportsLimitPushDown,
        SupportsAggregatePushDown {
  private final LanceSourceConfig config;
  private final LanceReadSchema tableSchema;
  private final LanceReadSchema filterSchema;
  private final Map<String, String> options;
  private RowType producedType;
  private final List<String> filters;
  private Long limit;
  private boolean countOnly;

  /**
   * @param tableSchema the schema of the version read (the latest, for a streaming read)
   * @param filterSchema the schema of the oldest version whose rows are read ({@link
   *     TableVersions#oldestReadSchema}): filters go into Lance on its columns only, as the columns
   *     added after it read as NULL there
   * @param options the table's options (the vector search and the lookup join read theirs)
   */
  LanceDynamicTableSource(
      LanceSourceConfig config,
      LanceReadSchema tableSchema,
      LanceReadSchema filterSchema,
      Map<String, String> options,
      RowType producedType) {
    this(config, tableSchema, filterSchema, options, producedType, List.of(), null, false);
  }

  private LanceDynamicTableSource(
      LanceSourceConfig config,
      LanceReadSchema tableSchema,
      LanceReadSchema filterSchema,
      Map<String, String> options,
      RowType producedType,
      List<String> filters,
      Long limit,
      boolean countOnly) {
    this.config = config;
    this.tableSchema = tableSchema;
    this.filterSchema = filterSchema;
    this.options = options;
    this.producedType = producedType;
    this.filters = new ArrayList<>(filters);
    this.limit = limit;
    this.countOnly = countOnly;
  }

  @Override
  public ChangelogMode getChangelogMode() {
    return config.changelog() ? ChangelogMode.all() : ChangelogMode.insertOnly();
  }

  @Override
  public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
    LanceScan scan = config.scan(producedType, pushedFilter(), limit);
    if (countOnly) {
      return InputFormatProvider.of(new RowCountFormat(scan));
    }
    return SourceProvider.of(LanceSource.of(scan), config.parallelism());
  }

  @Override
  public SearchTarget searchTarget() {
    return new SearchTarget(config, tableSchema, options, producedType, pushedFilter());
  }

  @Override
  public LookupRuntimeProvider getLookupRuntimeProvider(LookupContext context) {
    return LookupPlanner.provider(
        config, tableSchema, options, producedType, pushedFilter(), context);
  }

  private String pushedFilter() {
    return filters.isEmpty() ? null : LanceFilters.and(filters);
  }

  @Override
  public boolean supportsNestedProjection() {
    return false;
  }

  @Override
  public void applyProjection(int[][] projectedFields, DataType producedDataType) {
    this.producedType = (RowType) producedDataType.getLogicalType();
  }

  @Override
  public Result applyFilters(List<ResolvedExpression> flinkFilters) {
    if (!config.filterPushdown()) {
      return Result.of(List.of(), flinkFilters);
    }
    LanceFilters translator = new LanceFilters(filterSchema);
    List<ResolvedExpression> accepted = new ArrayList<>();
    List<ResolvedExpression> remaining = new ArrayList<>();
    for (ResolvedExpression filter : flinkFilters) {
      // a conjunct that would make the whole filter too deep for Lance stays in Flink
      Optional<String> lance =
          translator.translate(filter).filter(f -> LanceFilters.fits(withFilter(f)));
      if (lance.isPresent()) {
        filters.add(lance.get());
        accepted.add(filter);
      } else {
        remaining.add(filter);
      }
    }
    return Result.of(accepted, remaining);
  }

  private String withFilter(String filter) {
    List<String> all = new ArrayList<>(filters);
    all.add(filter);
    return LanceFilters.and(all);
  }

  @Override
  public void applyLimit(long limit) {
    this.limit = limit;
  }

  /**
   * Takes {@code COUNT(*)} (or {@code COUNT(1)}) without grouping from a bounded read, after the
   * filters Lance took: Flink sums the one row it gives. Anything else stays Flink's.
   */
  @Override
  public boolean applyAggregates(
      List<int[]> groupingSets, List<AggregateExpression> aggregates, DataType producedDataType) {
    if (config.streaming() != null
        || limit != null
        || groupingSets.size() != 1
        || groupingSets.get(0).length != 0
        || aggregates.size() != 1
        || !countsRows(aggregates.get(0))) {
      return false;
    }
    countOnly = true;
    producedType = (RowType) producedDataType.getLogicalType();
    return true;
  }

  /** COUNT(*) and COUNT(1): the planner's Count1AggFunction, not on a connector's class path. */
  private static boolean countsRows(AggregateExpression aggregate) {
    return aggregate.getArgs().isEmpty()
        && !aggregate.isDistinct()
        && aggregate.getFilterExpression().isEmpty()
        && aggregate.getFunctionDefinition().getClass().getSimpleName().equals("Count1AggFunction");
  }

  @Override
  public DynamicTableSource copy() {
    return new LanceDynamicTableSource(
        config, tableSchema, filterSchema, options, producedType, filters, limit, countOnly);
  }

  @Override
  public String asSummaryString() {
    return "Lance";
  }
}
