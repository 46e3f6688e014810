package dev.flinklance.table;

import dev.flinklance.sink.LanceSink;
import dev.flinklance.table.compat.ChangelogModes;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.SinkV2Provider;
import org.apache.flink.table.connector.sink.abilities.SupportsOverwrite;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * The SQL face of {@link LanceSink}: the same sink, options, committer and type conversion as the
 * DataStream API. A table without a primary key takes inserts only (appends; INSERT OVERWRITE in
 * batch mode); a table with one ({@code PRIMARY KEY (...) NOT ENFORCED}) takes an upsert changelog:
 * inserts, updates after, and deletes that may carry the key only.
 */
final class LanceDynamicTableSink implements DynamicTableSink, SupportsOverwrite {
  private final String table;
  private final RowType rowType;
  private final Map<String, String> sinkOptions;
  private final Integer parallelism;
  private final List<String> primaryKey;
  private boolean overwrite;

  /**
   * @param table the table's name in error messages
   * @param sinkOptions the {@link LanceSink} options, as string key-values
   * @param parallelism the writers' parallelism, or null for the input's
   * @param primaryKey the declared primary key's columns; none for a table that appends
   */
  LanceDynamicTableSink(
      String table,
      RowType rowType,
      Map<String, String> sinkOptions,
      Integer parallelism,
      List<String> primaryKey) {
    this.table = table;
    this.rowType = rowType;
    this.sinkOptions = Map.copyOf(sinkOptions);
    this.parallelism = parallelism;
    this.primaryKey = List.copyOf(primaryKey);
  }

  /**
   * With a primary key, an upsert changelog; without one, inserts only (Flink's planner refuses an
   * updating query into the table, naming it). The sink needs only the key of a delete, and takes
   * deletes that carry the key only (an upsert source's) where it can: the planner then keeps no
   * state to fill them in. Flink checks the NOT NULL columns on every row, deletes too ({@code
   * table.exec.sink.not-null-enforcer} fails them, or drops them and the key is never deleted), so
   * with a NOT NULL column outside the key the sink asks for whole deletes, which the planner
   * produces from the rows it has seen (as for any sink with that need).
   */
  @Override
  public ChangelogMode getChangelogMode(ChangelogMode requestedMode) {
    if (primaryKey.isEmpty()) {
      return ChangelogMode.insertOnly();
    }
    boolean onlyKeyNotNull =
        rowType.getFields().stream()
            .filter(field -> !primaryKey.contains(field.getName()))
            .allMatch(field -> field.getType().isNullable());
    return ChangelogModes.upsert(onlyKeyNotNull);
  }

  @Override
  public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
    if (overwrite && !context.isBounded()) {
      throw new ValidationException(
          String.format(
              "INSERT OVERWRITE into Lance table %s needs batch mode ('execution.runtime-mode' ="
                  + " 'batch'): it replaces the table's content once, at the end of the input,"
                  + " which a streaming job never reaches. Use INSERT INTO to append.",
              table));
    }
    return SinkV2Provider.of(buildSink(), parallelism);
  }

  /**
   * @throws IllegalArgumentException for an invalid sink option
   */
  LanceSink<RowData> buildSink() {
    return LanceSink.forRowData(rowType)
        .options(sinkOptions)
        .overwrite(overwrite)
        .primaryKey(primaryKey.toArray(String[]::new))
        .build();
  }

  @Override
  public void applyOverwrite(boolean overwrite) {
    this.overwrite = overwrite;
  }

  @Override
  public DynamicTableSink copy() {
    LanceDynamicTableSink copy =
        new LanceDynamicTableSink(table, rowType, sinkOptions, parallelism, primaryKey);
    copy.overwrite = overwrite;
    return copy;
  }

  @Override
  public String asSummaryString() {
    return "Lance";
  }
}
