package dev.flinklance.sink;

import static dev.flinklance.access.LanceDatasetOptions.PATH;
import static dev.flinklance.sink.LanceSinkOptions.SINK_COMMIT_DEDUPE_MAX_VERSIONS;
import static dev.flinklance.sink.LanceSinkOptions.SINK_COMMIT_MAX_ATTEMPTS;
import static dev.flinklance.sink.LanceSinkOptions.SINK_COMMIT_MAX_CONFLICT_RETRIES;
import static dev.flinklance.sink.LanceSinkOptions.SINK_COMMIT_USER;
import static dev.flinklance.sink.LanceSinkOptions.SINK_MAX_BUFFER_SIZE;
import static dev.flinklance.sink.LanceSinkOptions.SINK_MAX_FILE_SIZE;
import static dev.flinklance.sink.LanceSinkOptions.SINK_MAX_ROWS_PER_FILE;
import static dev.flinklance.sink.LanceSinkOptions.SINK_ON_INVALID_RECORD;
import static dev.flinklance.sink.LanceSinkOptions.SINK_SCHEMA_EVOLUTION;
import static dev.flinklance.sink.LanceSinkOptions.SINK_UPSERT_KEY_INDEX;
import static dev.flinklance.sink.LanceSinkOptions.SINK_UPSERT_MAX_BUFFER_SIZE;
import static dev.flinklance.sink.LanceSinkOptions.SINK_UPSERT_MAX_INLINE_KEYS_SIZE;

import dev.flinklance.access.LanceDatasetOptions;
import dev.flinklance.access.TableLayout;
import dev.flinklance.access.TableRef;
import dev.flinklance.key.PrimaryKey;
import java.io.Serializable;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;

/**
 * The validated, immutable settings of one sink. Every option is checked here, once, with a message
 * that names the option.
 */
@Internal
public final class LanceSinkConfig implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final long MIN_BUFFER_BYTES = MemorySize.ofMebiBytes(2).getBytes();

  private final Configuration options;
  private final TableRef dataset;
  private final String commitUser;
  private final int maxRowsPerFile;
  private final long maxBufferBytes;
  private final long maxFileBytes;
  private final TableLayout layout;
  private final int commitMaxConflictRetries;
  private final int commitMaxAttempts;
  private final int dedupeMaxVersions;
  private final boolean overwrite;
  private final InvalidRecordPolicy onInvalidRecord;
  private final SchemaEvolutionMode schemaEvolution;
  private final PrimaryKey primaryKey;
  private final long upsertMaxBufferBytes;
  private final boolean upsertKeyIndex;
  private final long upsertMaxInlineKeysBytes;

  private LanceSinkConfig(Configuration conf, boolean overwrite, PrimaryKey primaryKey) {
    this.options = new Configuration(conf);
    this.overwrite = overwrite;
    this.primaryKey = primaryKey;
    String path = conf.get(PATH);
    require(path != null && !path.isBlank(), PATH, "must be set to the table's URI");
    this.dataset = LanceDatasetOptions.dataset(absolute(path.trim()), conf);
    this.commitUser = conf.get(SINK_COMMIT_USER);
    require(commitUser == null || !commitUser.isBlank(), SINK_COMMIT_USER, "must not be blank");
    this.maxRowsPerFile = conf.get(SINK_MAX_ROWS_PER_FILE);
    require(maxRowsPerFile > 0, SINK_MAX_ROWS_PER_FILE, "must be positive, got " + maxRowsPerFile);
    this.maxBufferBytes = conf.get(SINK_MAX_BUFFER_SIZE).getBytes();
    require(
        maxBufferBytes >= MIN_BUFFER_BYTES,
        SINK_MAX_BUFFER_SIZE,
        "must be at least 2 mb, got " + conf.get(SINK_MAX_BUFFER_SIZE));
    this.maxFileBytes = conf.get(SINK_MAX_FILE_SIZE).getBytes();
    require(maxFileBytes >= MIN_BUFFER_BYTES, SINK_MAX_FILE_SIZE, "must be at least 2 mb");
    this.onInvalidRecord = conf.get(SINK_ON_INVALID_RECORD);
    this.schemaEvolution = enumOption(conf, SINK_SCHEMA_EVOLUTION, SchemaEvolutionMode.values());
    this.layout = TableLayout.from(conf);
    this.commitMaxConflictRetries = conf.get(SINK_COMMIT_MAX_CONFLICT_RETRIES);
    require(
        commitMaxConflictRetries >= 0, SINK_COMMIT_MAX_CONFLICT_RETRIES, "must not be negative");
    this.commitMaxAttempts = conf.get(SINK_COMMIT_MAX_ATTEMPTS);
    require(commitMaxAttempts >= 1, SINK_COMMIT_MAX_ATTEMPTS, "must be at least 1");
    this.dedupeMaxVersions = conf.get(SINK_COMMIT_DEDUPE_MAX_VERSIONS);
    require(dedupeMaxVersions >= 1, SINK_COMMIT_DEDUPE_MAX_VERSIONS, "must be at least 1");
    this.upsertMaxBufferBytes = conf.get(SINK_UPSERT_MAX_BUFFER_SIZE).getBytes();
    require(
        upsertMaxBufferBytes >= MIN_BUFFER_BYTES,
        SINK_UPSERT_MAX_BUFFER_SIZE,
        "must be at least 2 mb, got " + conf.get(SINK_UPSERT_MAX_BUFFER_SIZE));
    this.upsertKeyIndex = conf.get(SINK_UPSERT_KEY_INDEX);
    this.upsertMaxInlineKeysBytes = conf.get(SINK_UPSERT_MAX_INLINE_KEYS_SIZE).getBytes();
  }

  /**
   * @throws IllegalArgumentException naming the first invalid option
   */
  public static LanceSinkConfig from(Configuration conf) {
    return new LanceSinkConfig(conf, false, null);
  }

  /**
   * @param overwrite replace the table's rows with the input's, in one commit at the end of input
   * @param primaryKey the rows' primary key, or null for a sink that appends
   * @throws IllegalArgumentException naming the first invalid option
   */
  public static LanceSinkConfig from(Configuration conf, boolean overwrite, PrimaryKey primaryKey) {
    return new LanceSinkConfig(conf, overwrite, primaryKey);
  }

  /**
   * A relative local path is resolved where the sink is built: each task manager would otherwise
   * resolve it against its own working directory.
   */
  private static String absolute(String path) {
    return path.contains("://") ? path : Path.of(path).toAbsolutePath().normalize().toString();
  }

  /** An option's value, or the failure to parse it naming the option and its values. */
  private static <E extends Enum<E>> E enumOption(
      Configuration conf, ConfigOption<E> option, E[] values) {
    try {
      return conf.get(option);
    } catch (IllegalArgumentException e) {
      throw invalid(
          option,
          String.format(
              "must be one of %s, got '%s'",
              Arrays.toString(values), conf.toMap().get(option.key())));
    }
  }

  private static void require(boolean condition, ConfigOption<?> option, String problem) {
    if (!condition) {
      throw invalid(option, problem);
    }
  }

  private static IllegalArgumentException invalid(ConfigOption<?> option, String problem) {
    return new IllegalArgumentException(
        String.format("Invalid Lance sink option '%s': %s", option.key(), problem));
  }

  /**
   * Every option the sink was built with, including those of its post-commit topologies ({@code
   * compaction.*}). A copy: the config stays immutable.
   */
  public Configuration options() {
    return new Configuration(options);
  }

  public TableRef dataset() {
    return dataset;
  }

  /** The user-set commit user, or null to use the one kept in Flink state. */
  public String commitUser() {
    return commitUser;
  }

  public int maxRowsPerFile() {
    return maxRowsPerFile;
  }

  public long maxBufferBytes() {
    return maxBufferBytes;
  }

  public long maxFileBytes() {
    return maxFileBytes;
  }

  public InvalidRecordPolicy onInvalidRecord() {
    return onInvalidRecord;
  }

  public SchemaEvolutionMode schemaEvolution() {
    return schemaEvolution;
  }

  /** How a table this sink creates is laid out. */
  public TableLayout layout() {
    return layout;
  }

  public int commitMaxConflictRetries() {
    return commitMaxConflictRetries;
  }

  public int commitMaxAttempts() {
    return commitMaxAttempts;
  }

  public int dedupeMaxVersions() {
    return dedupeMaxVersions;
  }

  /** Whether the sink replaces the table's rows (one Overwrite at end of input) or appends. */
  public boolean overwrite() {
    return overwrite;
  }

  /**
   * The rows' primary key: a sink with one applies changes by key (the latest change of each key
   * replaces its row, deletes remove it); without one it appends.
   */
  public Optional<PrimaryKey> primaryKey() {
    return Optional.ofNullable(primaryKey);
  }

  public long upsertMaxBufferBytes() {
    return upsertMaxBufferBytes;
  }

  public long upsertMaxInlineKeysBytes() {
    return upsertMaxInlineKeysBytes;
  }

  /** Whether the committer builds and keeps the key's BTree indexes. */
  public boolean upsertKeyIndex() {
    return upsertKeyIndex;
  }
}
