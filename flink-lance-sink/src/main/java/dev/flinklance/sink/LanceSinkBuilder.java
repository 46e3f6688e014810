package dev.flinklance.sink;

import dev.flinklance.access.LanceDatasetOptions;
import dev.flinklance.arrow.Compression;
import dev.flinklance.key.PrimaryKey;
import dev.flinklance.maintenance.TableMaintenances;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.function.SerializableFunction;

/**
 * Builds a {@link LanceSink}. Setters write {@link LanceSinkOptions}; {@link #build()} validates
 * them and the record type, so misconfiguration fails before the job is submitted.
 */
@PublicEvolving
public final class LanceSinkBuilder<T> {
  private final RowType rowType;
  private final SerializableFunction<T, RowData> toRowData;
  private final Configuration options = new Configuration();
  private final Map<String, String> vectorColumns = new LinkedHashMap<>();
  private final Map<String, String> columnCompressions = new LinkedHashMap<>();
  private boolean overwrite;
  private List<String> primaryKey = List.of();

  LanceSinkBuilder(RowType rowType, SerializableFunction<T, RowData> toRowData) {
    this.rowType = rowType;
    this.toRowData = toRowData;
  }

  /** The table's URI: a local path, {@code file://}, {@code s3://}, ... */
  public LanceSinkBuilder<T> path(String uri) {
    return set(LanceDatasetOptions.PATH, uri);
  }

  /**
   * Lance storage options (object-store credentials, endpoint, timeouts), the same as the SQL
   * connector's {@code storage.*} keys without the prefix.
   */
  public LanceSinkBuilder<T> storageOptions(Map<String, String> storageOptions) {
    storageOptions.forEach(this::storageOption);
    return this;
  }

  /** One Lance storage option, e.g. {@code storageOption("aws_region", "eu-west-1")}. */
  public LanceSinkBuilder<T> storageOption(String key, String value) {
    options.setString(LanceDatasetOptions.STORAGE_PREFIX + key, value);
    return this;
  }

  /** Fixes the commit user; by default a UUID is created and kept in Flink state. */
  public LanceSinkBuilder<T> commitUser(String commitUser) {
    return set(LanceSinkOptions.SINK_COMMIT_USER, commitUser);
  }

  public LanceSinkBuilder<T> maxRowsPerFile(int maxRowsPerFile) {
    return set(LanceSinkOptions.SINK_MAX_ROWS_PER_FILE, maxRowsPerFile);
  }

  public LanceSinkBuilder<T> maxBufferBytes(long maxBufferBytes) {
    return set(LanceSinkOptions.SINK_MAX_BUFFER_SIZE, new MemorySize(maxBufferBytes));
  }

  /**
   * What the sink does with columns of its rows that the table lacks ({@code
   * sink.schema-evolution}): {@link SchemaEvolutionMode#NONE} (the default) fails the job, {@link
   * SchemaEvolutionMode#ADD_COLUMNS} adds them before the sink's first commit.
   */
  public LanceSinkBuilder<T> schemaEvolution(SchemaEvolutionMode mode) {
    return set(LanceSinkOptions.SINK_SCHEMA_EVOLUTION, mode);
  }

  /** Enables Lance stable row ids when the sink creates the table. */
  public LanceSinkBuilder<T> stableRowIds(boolean stableRowIds) {
    return set(LanceDatasetOptions.STABLE_ROW_IDS, stableRowIds);
  }

  /** Writes a top-level ARRAY column as a fixed-dimension vector (Arrow FixedSizeList). */
  public LanceSinkBuilder<T> vectorColumn(String column, int dimension) {
    vectorColumns.put(column, Integer.toString(dimension));
    return set(LanceDatasetOptions.VECTOR_COLUMNS, Map.copyOf(vectorColumns));
  }

  /**
   * Compresses the columns of a table the sink creates ({@code sink.compression}); an existing
   * table keeps its own.
   */
  public LanceSinkBuilder<T> compression(Compression compression) {
    return set(LanceDatasetOptions.SINK_COMPRESSION, compression);
  }

  /** The zstd level (1 to 22) of a table the sink creates ({@code sink.compression-level}). */
  public LanceSinkBuilder<T> compressionLevel(int level) {
    return set(LanceDatasetOptions.SINK_COMPRESSION_LEVEL, level);
  }

  /**
   * Compresses one top-level column of a table the sink creates its own way ({@code
   * sink.compression.columns}).
   */
  public LanceSinkBuilder<T> columnCompression(String column, Compression compression) {
    columnCompressions.put(column, compression.name());
    return set(LanceDatasetOptions.SINK_COMPRESSION_COLUMNS, Map.copyOf(columnCompressions));
  }

  /**
   * Replaces the table's rows with the input's instead of appending: ONE stamped Overwrite
   * transaction at the end of the input (an empty input empties the table). Needs BATCH execution;
   * this is what SQL's {@code INSERT OVERWRITE} does.
   */
  public LanceSinkBuilder<T> overwrite(boolean overwrite) {
    this.overwrite = overwrite;
    return this;
  }

  /**
   * The rows' primary key (one or more columns of TINYINT, SMALLINT, INT, BIGINT, CHAR, VARCHAR or
   * DATE): the sink then applies changes by key, exactly once per checkpoint. Each record's {@code
   * RowKind} says what it does: INSERT and UPDATE_AFTER replace the row of their key (or add it),
   * DELETE and UPDATE_BEFORE remove the row of their key (its other columns may be NULL; an
   * UPDATE_BEFORE followed by the UPDATE_AFTER of the same key is superseded by it, one that
   * changes the key removes the old key's row). A table the sink creates declares the key as
   * Lance's unenforced primary key; an existing table must have these columns and, if it declares a
   * primary key, this one. See docs/semantics.md.
   */
  public LanceSinkBuilder<T> primaryKey(String... columns) {
    this.primaryKey = List.of(columns);
    return this;
  }

  /**
   * Options as string key-value pairs, as the SQL connector receives them: any key of {@link
   * LanceDatasetOptions}, {@link LanceSinkOptions}, {@code storage.*} or a post-commit topology's
   * ({@code compaction.*}).
   */
  public LanceSinkBuilder<T> options(Map<String, String> keyValues) {
    keyValues.forEach(options::setString);
    return this;
  }

  /** Any other {@link LanceSinkOptions} or {@link LanceDatasetOptions} option. */
  public <V> LanceSinkBuilder<T> set(ConfigOption<V> option, V value) {
    options.set(option, value);
    return this;
  }

  /**
   * @throws IllegalArgumentException for an invalid option, a column type Lance cannot store, or a
   *     primary key column that is not a column of the rows or cannot be a key
   */
  public LanceSink<T> build() {
    PrimaryKey key =
        primaryKey.isEmpty()
            ? null
            : PrimaryKey.of(rowType, primaryKey, options.get(LanceDatasetOptions.PATH));
    LanceSinkConfig config = LanceSinkConfig.from(options, overwrite, key);
    config.layout().schemaFor(rowType);
    TableMaintenances.validate(options);
    return new LanceSink<>(config, rowType, toRowData);
  }
}
