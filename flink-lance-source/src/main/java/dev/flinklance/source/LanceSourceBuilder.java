package dev.flinklance.source;

import dev.flinklance.access.LanceDatasetOptions;
import dev.flinklance.arrow.read.LanceReadSchema;
import dev.flinklance.filter.LanceSqlText;
import java.time.Duration;
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
  private List<String> changelogKey = List.of();

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

  /**
   * Follows the table ({@code scan.streaming}): from the start position ({@code full} by default:
   * the latest version's rows, then every change after it), reads each new version once, in order.
   */
  public LanceSourceBuilder streaming() {
    return set(LanceSourceOptions.SCAN_STREAMING, true);
  }

  /** A streaming read starts with the changes after the latest version (none of its rows). */
  public LanceSourceBuilder startFromLatest() {
    return set(LanceSourceOptions.SCAN_STARTUP_MODE, StartupMode.LATEST);
  }

  /** A streaming read starts with the changes after {@code version} (0: from the first). */
  public LanceSourceBuilder startAfterVersion(long version) {
    set(LanceSourceOptions.SCAN_STARTUP_MODE, StartupMode.VERSION);
    return set(LanceSourceOptions.SCAN_STARTUP_VERSION, version);
  }

  /** A streaming read starts with the versions committed after {@code epochMillis}. */
  public LanceSourceBuilder startFromTimestamp(long epochMillis) {
    set(LanceSourceOptions.SCAN_STARTUP_MODE, StartupMode.TIMESTAMP);
    return set(LanceSourceOptions.SCAN_STARTUP_TIMESTAMP_MILLIS, epochMillis);
  }

  /** How often a streaming read looks for new versions ({@code scan.discovery-interval}). */
  public LanceSourceBuilder discoveryInterval(Duration interval) {
    return set(LanceSourceOptions.SCAN_DISCOVERY_INTERVAL, interval);
  }

  /** Emits deletions and updates too ({@code scan.changelog}); run the source at parallelism 1. */
  public LanceSourceBuilder changelog(boolean changelog) {
    return set(LanceSourceOptions.SCAN_CHANGELOG, changelog);
  }

  /** What a streaming read does with a version that replaced the table's rows. */
  public LanceSourceBuilder onOverwrite(OnOverwrite onOverwrite) {
    return set(LanceSourceOptions.SCAN_ON_OVERWRITE, onOverwrite);
  }

  /** What an append-only streaming read does with a version that deletes or updates rows. */
  public LanceSourceBuilder onDelete(OnDelete onDelete) {
    return set(LanceSourceOptions.SCAN_ON_DELETE, onDelete);
  }

  /** What a streaming read does with a version that drops or renames a column it reads. */
  public LanceSourceBuilder onSchemaChange(OnSchemaChange onSchemaChange) {
    return set(LanceSourceOptions.SCAN_ON_SCHEMA_CHANGE, onSchemaChange);
  }

  /**
   * Registers the streaming read in the table as consumer {@code id} ({@code scan.consumer-id}):
   * this connector's version cleanup keeps every version the read still needs.
   */
  public LanceSourceBuilder consumerId(String id) {
    return set(LanceSourceOptions.SCAN_CONSUMER_ID, id);
  }

  /** How long a registration outlives its last write ({@code scan.consumer.expiration-time}). */
  public LanceSourceBuilder consumerExpiration(Duration expiration) {
    return set(LanceSourceOptions.SCAN_CONSUMER_EXPIRATION_TIME, expiration);
  }

  /**
   * The columns that identify a row: in a changelog read, a deleted row and an added row of one
   * version with the same key are an update (-U, +U). Default: Lance's stable row id, if the table
   * has them; else deletions and additions stay -D and +I.
   */
  public LanceSourceBuilder primaryKey(String... columns) {
    this.changelogKey = List.of(columns);
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
   * @throws dev.flinklance.errors.LanceDatasetException if the table or version cannot be opened
   */
  public LanceSource build() {
    LanceSourceConfig config = LanceSourceConfig.from(options).withChangelogKey(changelogKey);
    if (config.streaming() != null && limit != null) {
      throw new IllegalArgumentException(
          "limitPerSplit applies to bounded reads only, not with 'scan.streaming' = 'true'");
    }
    if (!changelogKey.isEmpty() && !config.changelog()) {
      throw new IllegalArgumentException(
          "primaryKey applies to changelog reads only ('scan.changelog' = 'true')");
    }
    LanceReadSchema schema =
        TableVersions.readSchema(config.dataset(), config.version(), config.tag());
    RowType rowType = columns == null ? schema.rowType() : schema.rowType(columns);
    schema.rowType(changelogKey); // every key column exists, with a Flink type
    return new LanceSource(
        config.scan(rowType, filter == null ? null : LanceSqlText.forLance(filter), limit));
  }
}
