package dev.flinklance.table.source;

import dev.flinklance.arrow.read.LanceReadSchema;
import dev.flinklance.dataset.LanceDatasetOptions;
import dev.flinklance.table.filter.LanceSqlText;
import java.util.List;
import java.util.Map;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.types.logical.RowType;

/**
 * Builds a {@link LanceSource}. Setters write {@link LanceSourceOptions} and {@link
 * LanceDatasetOptions}; {@link #build()} validates them and reads the table's schema, so a wrong
 * path, version or column fails before the job is submitted.
 */
@PublicEvolving
public final class LanceSourceBuilder {
  private final Configuration options = new Configuration();
  private List<String> columns;
  private String filter;
  private Long limit;

  LanceSourceBuilder() {}

  /** The table's URI: a local path, {@code file://}, {@code s3://}, ... */
  public LanceSourceBuilder path(String uri) {
    return set(LanceDatasetOptions.PATH, uri);
  }

  /** Lance storage options (object-store credentials, endpoint, timeouts), without prefix. */
  public LanceSourceBuilder storageOptions(Map<String, String> storageOptions) {
    storageOptions.forEach(this::storageOption);
    return this;
  }

  public LanceSourceBuilder storageOption(String key, String value) {
    options.setString(LanceDatasetOptions.STORAGE_PREFIX + key, value);
    return this;
  }

  /** Reads this table version instead of the latest one. */
  public LanceSourceBuilder version(long version) {
    return set(LanceSourceOptions.SCAN_VERSION, version);
  }

  /** Reads the version the tag points to. */
  public LanceSourceBuilder tag(String tag) {
    return set(LanceSourceOptions.SCAN_TAG, tag);
  }

  public LanceSourceBuilder batchSize(int rows) {
    return set(LanceSourceOptions.SCAN_BATCH_SIZE, rows);
  }

  /** The columns to read, in the order of the produced rows. Default: every column. */
  public LanceSourceBuilder columns(String... columns) {
    this.columns = List.of(columns);
    return this;
  }

  /**
   * A filter in Lance's SQL dialect, evaluated by Lance, e.g. {@code "id > 10 AND x IS NULL"}.
   * String literals may hold any character ({@link #build()} writes those lance-core cannot receive
   * through JNI another way); long OR chains belong in IN lists: {@link #build()} refuses a filter
   * that nests more than 100 operators deep, which could overflow the stack of Lance's planner.
   */
  public LanceSourceBuilder filter(String lanceSqlFilter) {
    this.filter = lanceSqlFilter;
    return this;
  }

  /** Reads at most this many rows from each fragment. */
  public LanceSourceBuilder limitPerSplit(long rows) {
    if (rows < 0) {
      throw new IllegalArgumentException("limit must not be negative, got " + rows);
    }
    this.limit = rows;
    return this;
  }

  /** Options as string key-value pairs: {@code path}, {@code storage.*}, {@code scan.*}. */
  public LanceSourceBuilder options(Map<String, String> keyValues) {
    keyValues.forEach(options::setString);
    return this;
  }

  public <V> LanceSourceBuilder set(ConfigOption<V> option, V value) {
    options.set(option, value);
    return this;
  }

  /**
   * @throws IllegalArgumentException for an invalid option, a missing column, a column type without
   *     a Flink equivalent, or a filter Lance cannot take (see {@link #filter})
   * @throws dev.flinklance.dataset.LanceDatasetException if the table or version cannot be opened
   */
  public LanceSource build() {
    LanceSourceConfig config = LanceSourceConfig.from(options);
    LanceReadSchema schema =
        TableVersions.readSchema(config.dataset(), config.version(), config.tag());
    RowType rowType = columns == null ? schema.rowType() : schema.rowType(columns);
    return new LanceSource(
        new LanceScan(
            config.dataset(),
            config.version(),
            config.tag(),
            rowType,
            filter == null ? null : LanceSqlText.forLance(filter),
            limit,
            config.batchSize()));
  }
}
