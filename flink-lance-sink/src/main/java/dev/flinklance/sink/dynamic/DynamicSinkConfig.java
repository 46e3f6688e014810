package dev.flinklance.sink.dynamic;

import static dev.flinklance.sink.dynamic.DynamicLanceSinkOptions.SINK_DYNAMIC_COMMIT_THREADS;
import static dev.flinklance.sink.dynamic.DynamicLanceSinkOptions.SINK_DYNAMIC_MAX_BUFFER_SIZE;
import static dev.flinklance.sink.dynamic.DynamicLanceSinkOptions.SINK_DYNAMIC_MAX_OPEN_TABLES;
import static dev.flinklance.sink.dynamic.DynamicLanceSinkOptions.SINK_DYNAMIC_WRITERS_PER_TABLE;
import static dev.flinklance.sink.dynamic.DynamicLanceSinkOptions.WAREHOUSE;

import dev.flinklance.access.LanceDatasetOptions;
import dev.flinklance.access.Warehouse;
import dev.flinklance.key.PrimaryKey;
import dev.flinklance.maintenance.TableMaintenances;
import dev.flinklance.sink.InvalidRecordPolicy;
import dev.flinklance.sink.LanceSinkConfig;
import dev.flinklance.sink.LanceSinkOptions;
import dev.flinklance.sink.SchemaEvolutionMode;
import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.table.types.logical.RowType;

/**
 * The validated settings of a {@link DynamicLanceSink}, and the single-table sink settings of each
 * table it writes ({@link #forTable}): the same options, with the table's path, key and vector
 * columns. Tables evolve by default ({@code sink.schema-evolution = add-columns}): a dynamic sink
 * exists to follow its records' schemas.
 */
@Internal
public final class DynamicSinkConfig implements Serializable {
  private static final long serialVersionUID = 1L;

  private final Configuration options;
  private final Warehouse warehouse;
  private final int writersPerTable;
  private final int maxOpenTables;
  private final long maxBufferBytes;
  private final int commitThreads;

  private DynamicSinkConfig(Configuration conf) {
    String uri = conf.get(WAREHOUSE);
    require(uri != null && !uri.isBlank(), WAREHOUSE, "must be set to the tables' directory");
    this.options = new Configuration(conf);
    if (!conf.contains(LanceSinkOptions.SINK_SCHEMA_EVOLUTION)) {
      options.set(LanceSinkOptions.SINK_SCHEMA_EVOLUTION, SchemaEvolutionMode.ADD_COLUMNS);
    }
    try {
      this.warehouse = new Warehouse(uri.trim(), conf.toMap());
    } catch (IllegalArgumentException e) {
      throw invalid(WAREHOUSE, e.getMessage());
    }
    this.writersPerTable = conf.get(SINK_DYNAMIC_WRITERS_PER_TABLE);
    require(writersPerTable >= 1, SINK_DYNAMIC_WRITERS_PER_TABLE, "must be at least 1");
    this.maxOpenTables = conf.get(SINK_DYNAMIC_MAX_OPEN_TABLES);
    require(maxOpenTables >= 1, SINK_DYNAMIC_MAX_OPEN_TABLES, "must be at least 1");
    this.maxBufferBytes = conf.get(SINK_DYNAMIC_MAX_BUFFER_SIZE).getBytes();
    require(
        maxBufferBytes >= MemorySize.ofMebiBytes(2).getBytes(),
        SINK_DYNAMIC_MAX_BUFFER_SIZE,
        "must be at least 2 mb");
    this.commitThreads = conf.get(SINK_DYNAMIC_COMMIT_THREADS);
    require(commitThreads >= 1, SINK_DYNAMIC_COMMIT_THREADS, "must be at least 1");
    TableMaintenances.validate(options);
    // Every option a table's sink reads, checked once here rather than at the first record.
    Configuration probe = new Configuration(options);
    probe.set(LanceDatasetOptions.PATH, warehouse.uri());
    LanceSinkConfig.from(probe);
  }

  /**
   * @throws IllegalArgumentException naming the first invalid option
   */
  static DynamicSinkConfig from(Configuration conf) {
    return new DynamicSinkConfig(conf);
  }

  private static void require(boolean condition, ConfigOption<?> option, String problem) {
    if (!condition) {
      throw invalid(option, problem);
    }
  }

  private static IllegalArgumentException invalid(ConfigOption<?> option, String problem) {
    return new IllegalArgumentException(
        String.format("Invalid dynamic Lance sink option '%s': %s", option.key(), problem));
  }

  /**
   * The settings of one table's writers and committer.
   *
   * @param rowType the rows' type, which the key's columns must be in
   * @param primaryKey the key's columns, empty for a table the sink appends to
   * @param vectorColumns the record's vector columns, besides the sink's
   * @throws IllegalArgumentException naming the table: a name that breaks the warehouse's rules, a
   *     key that is not in the rows
   */
  LanceSinkConfig forTable(
      TableName name,
      RowType rowType,
      List<String> primaryKey,
      Map<String, Integer> vectorColumns) {
    Configuration table = new Configuration(options);
    String uri = warehouse.tableUri(name.database(), name.table());
    table.set(LanceDatasetOptions.PATH, uri);
    if (!vectorColumns.isEmpty()) {
      Map<String, String> vectors =
          new LinkedHashMap<>(table.get(LanceDatasetOptions.VECTOR_COLUMNS));
      vectorColumns.forEach((column, dimension) -> vectors.put(column, dimension.toString()));
      table.set(LanceDatasetOptions.VECTOR_COLUMNS, vectors);
    }
    PrimaryKey key = primaryKey.isEmpty() ? null : PrimaryKey.of(rowType, primaryKey, uri);
    return LanceSinkConfig.from(table, false, key);
  }

  /** The options of every table (the table maintenance's among them). */
  Configuration options() {
    return options;
  }

  public Warehouse warehouse() {
    return warehouse;
  }

  /** The user-set commit user, or null to use the one kept in Flink state. */
  public String commitUser() {
    return options.get(LanceSinkOptions.SINK_COMMIT_USER);
  }

  InvalidRecordPolicy onInvalidRecord() {
    return options.get(LanceSinkOptions.SINK_ON_INVALID_RECORD);
  }

  int writersPerTable() {
    return writersPerTable;
  }

  int maxOpenTables() {
    return maxOpenTables;
  }

  long maxBufferBytes() {
    return maxBufferBytes;
  }

  int commitThreads() {
    return commitThreads;
  }
}
