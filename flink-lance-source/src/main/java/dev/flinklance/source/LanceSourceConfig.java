package dev.flinklance.source;

import static dev.flinklance.source.LanceSourceOptions.SCAN_BATCH_SIZE;
import static dev.flinklance.source.LanceSourceOptions.SCAN_CHANGELOG;
import static dev.flinklance.source.LanceSourceOptions.SCAN_CONSUMER_EXPIRATION_TIME;
import static dev.flinklance.source.LanceSourceOptions.SCAN_CONSUMER_ID;
import static dev.flinklance.source.LanceSourceOptions.SCAN_DISCOVERY_INTERVAL;
import static dev.flinklance.source.LanceSourceOptions.SCAN_FILTER_PUSHDOWN_ENABLED;
import static dev.flinklance.source.LanceSourceOptions.SCAN_ON_DELETE;
import static dev.flinklance.source.LanceSourceOptions.SCAN_ON_OVERWRITE;
import static dev.flinklance.source.LanceSourceOptions.SCAN_ON_SCHEMA_CHANGE;
import static dev.flinklance.source.LanceSourceOptions.SCAN_STARTUP_MODE;
import static dev.flinklance.source.LanceSourceOptions.SCAN_STARTUP_TIMESTAMP_MILLIS;
import static dev.flinklance.source.LanceSourceOptions.SCAN_STARTUP_VERSION;
import static dev.flinklance.source.LanceSourceOptions.SCAN_STREAMING;
import static dev.flinklance.source.LanceSourceOptions.SCAN_TAG;
import static dev.flinklance.source.LanceSourceOptions.SCAN_VERSION;

import dev.flinklance.access.LanceDatasetOptions;
import dev.flinklance.access.TableRef;
import dev.flinklance.consumer.Consumers;
import dev.flinklance.files.TableFiles;
import java.time.Duration;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.logical.RowType;

/**
 * The validated settings of one source. Every option is checked here, once, with a message that
 * names the option; the DataStream builder and the SQL connector both go through it.
 *
 * @param streaming how a streaming read follows the table, or null for a bounded read
 * @param parallelism {@code scan.parallelism} of the SQL connector, or null
 */
@Internal
public record LanceSourceConfig(
    TableRef dataset,
    Long version,
    String tag,
    int batchSize,
    boolean filterPushdown,
    StreamingRead streaming,
    Integer parallelism) {

  /**
   * @throws IllegalArgumentException naming the first invalid option
   */
  public static LanceSourceConfig from(Configuration options) {
    String path = options.get(LanceDatasetOptions.PATH);
    require(
        path != null && !path.isBlank(),
        LanceDatasetOptions.PATH,
        "must be set to the table's URI");
    Long version = options.get(SCAN_VERSION);
    require(version == null || version >= 1, SCAN_VERSION, "must be at least 1, got " + version);
    String tag = options.get(SCAN_TAG);
    require(tag == null || !tag.isBlank(), SCAN_TAG, "must not be blank");
    require(
        version == null || tag == null,
        SCAN_TAG,
        "cannot be combined with '" + SCAN_VERSION.key() + "'");
    int batchSize = options.get(SCAN_BATCH_SIZE);
    require(batchSize > 0, SCAN_BATCH_SIZE, "must be positive, got " + batchSize);
    StreamingRead streaming = streaming(options, path);
    require(
        streaming == null || (version == null && tag == null),
        version != null ? SCAN_VERSION : SCAN_TAG,
        "reads one version; a streaming read ('scan.streaming' = 'true') starts from"
            + " 'scan.startup.mode' = 'version' with 'scan.startup.version'");
    Integer parallelism = options.get(FactoryUtil.SOURCE_PARALLELISM);
    require(
        parallelism == null || parallelism > 0,
        FactoryUtil.SOURCE_PARALLELISM,
        "must be positive, got " + parallelism);
    return new LanceSourceConfig(
        LanceDatasetOptions.dataset(path, options),
        version,
        tag,
        batchSize,
        options.get(SCAN_FILTER_PUSHDOWN_ENABLED),
        streaming,
        parallelism);
  }

  /**
   * The streaming read the options ask for, or null. The streaming keys are checked in a bounded
   * read too, and ignored there: a table's options may tune the streaming reads that hints ask for.
   */
  private static StreamingRead streaming(Configuration options, String path) {
    StartupMode mode = options.get(SCAN_STARTUP_MODE);
    Long startVersion = options.get(SCAN_STARTUP_VERSION);
    Long startMillis = options.get(SCAN_STARTUP_TIMESTAMP_MILLIS);
    requireExactlyWith(options, SCAN_STARTUP_VERSION, mode == StartupMode.VERSION, "version");
    requireExactlyWith(
        options, SCAN_STARTUP_TIMESTAMP_MILLIS, mode == StartupMode.TIMESTAMP, "timestamp");
    require(
        startVersion == null || startVersion >= 0,
        SCAN_STARTUP_VERSION,
        "must not be negative, got " + startVersion);
    require(
        startMillis == null || startMillis >= 0,
        SCAN_STARTUP_TIMESTAMP_MILLIS,
        "must not be negative, got " + startMillis);
    Duration interval = options.get(SCAN_DISCOVERY_INTERVAL);
    require(
        interval.toMillis() >= 1,
        SCAN_DISCOVERY_INTERVAL,
        "must be at least 1 ms, got " + interval);
    boolean changelog = options.get(SCAN_CHANGELOG);
    OnOverwrite onOverwrite = options.get(SCAN_ON_OVERWRITE);
    require(
        changelog || onOverwrite != OnOverwrite.CHANGELOG,
        SCAN_ON_OVERWRITE,
        "'changelog' needs 'scan.changelog' = 'true'");
    require(
        !changelog || !options.contains(SCAN_ON_DELETE),
        SCAN_ON_DELETE,
        "applies to append-only reads; with 'scan.changelog' = 'true' deletions are emitted");
    String consumerId = options.get(SCAN_CONSUMER_ID);
    if (consumerId != null) {
      Consumers.invalidId(consumerId)
          .ifPresent(problem -> require(false, SCAN_CONSUMER_ID, problem));
      require(
          TableFiles.supports(path),
          SCAN_CONSUMER_ID,
          "registrations are kept beside tables on local disk and s3:// only, not at " + path);
    }
    Duration expiration = options.get(SCAN_CONSUMER_EXPIRATION_TIME);
    require(
        expiration.toMillis() >= 1,
        SCAN_CONSUMER_EXPIRATION_TIME,
        "must be at least 1 ms, got " + expiration);
    StreamingRead read =
        new StreamingRead(
            mode,
            startVersion,
            startMillis,
            interval,
            changelog,
            onOverwrite,
            options.get(SCAN_ON_DELETE),
            options.get(SCAN_ON_SCHEMA_CHANGE),
            List.of(),
            consumerId,
            expiration);
    return options.get(SCAN_STREAMING) ? read : null;
  }

  /** {@code option} is set if and only if the startup mode is {@code mode}. */
  private static void requireExactlyWith(
      Configuration options, ConfigOption<Long> option, boolean modeNeedsIt, String mode) {
    if (modeNeedsIt) {
      require(
          options.contains(option),
          option,
          "must be set with '" + SCAN_STARTUP_MODE.key() + "' = '" + mode + "'");
    } else {
      require(
          !options.contains(option),
          option,
          "applies only with '" + SCAN_STARTUP_MODE.key() + "' = '" + mode + "'");
    }
  }

  /**
   * The pairing key of a changelog read: the table's primary key columns.
   *
   * @throws IllegalArgumentException for {@code scan.parallelism} in a changelog read without a
   *     key: Flink partitions the changes of a source of its own parallelism by the primary key
   */
  public LanceSourceConfig withChangelogKey(List<String> columns) {
    if (streaming == null || !streaming.changelog()) {
      return this;
    }
    require(
        parallelism == null || !columns.isEmpty(),
        FactoryUtil.SOURCE_PARALLELISM,
        "with 'scan.changelog' = 'true' it needs the table's PRIMARY KEY, by which Flink"
            + " partitions the changes after the source");
    return new LanceSourceConfig(
        dataset,
        version,
        tag,
        batchSize,
        filterPushdown,
        streaming.withChangelogKey(columns),
        parallelism);
  }

  /**
   * What a job reads with this config: {@code rowType}'s columns, the pushed filter and limit. A
   * streaming read takes no limit (each split would stop early; Flink applies the limit).
   */
  public LanceScan scan(RowType rowType, String filter, Long limit) {
    return new LanceScan(
        dataset,
        version,
        tag,
        rowType,
        filter,
        streaming == null ? limit : null,
        batchSize,
        streaming);
  }

  /** Whether the source emits deletions and updates. */
  public boolean changelog() {
    return streaming != null && streaming.changelog();
  }

  private static void require(boolean condition, ConfigOption<?> option, String problem) {
    if (!condition) {
      throw new IllegalArgumentException(
          String.format("Invalid Lance source option '%s': %s", option.key(), problem));
    }
  }
}
