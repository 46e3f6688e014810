package dev.flinklance.sink;

import java.util.Map;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;

/**
 * Every option of the Lance sink. The DataStream builder and the SQL connector both write these
 * keys into one {@link org.apache.flink.configuration.Configuration}; {@link LanceSinkConfig}
 * validates it in one place.
 */
public final class LanceSinkOptions {

  public static final ConfigOption<String> PATH =
      ConfigOptions.key("path")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "URI of the Lance table: a local path, file://, s3://, gs://, az:// or any URI Lance"
                  + " supports. The table is created on first write if it does not exist.");

  public static final ConfigOption<Map<String, String>> STORAGE_OPTIONS =
      ConfigOptions.key("storage-options")
          .mapType()
          .defaultValue(Map.of())
          .withDescription(
              "Object-store options passed to every Lance call (for example aws_region,"
                  + " aws_endpoint, aws_access_key_id, aws_secret_access_key, allow_http).");

  public static final ConfigOption<String> COMMIT_USER =
      ConfigOptions.key("commit-user")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "Identity stamped on every commit and used to detect replayed commits. Default: a"
                  + " UUID created on the sink's first run and kept in Flink state. Two sinks"
                  + " writing one table must use different commit users.");

  public static final ConfigOption<Integer> MAX_ROWS_PER_FILE =
      ConfigOptions.key("write.max-rows-per-file")
          .intType()
          .defaultValue(1_000_000)
          .withDescription("A writer rolls to a new fragment file after this many rows.");

  public static final ConfigOption<MemorySize> MAX_BUFFER_BYTES =
      ConfigOptions.key("write.max-buffer-size")
          .memoryType()
          .defaultValue(MemorySize.ofMebiBytes(64))
          .withDescription(
              "Arrow memory a writer buffers before it writes a fragment file. Bounds the"
                  + " writer's heap-external memory (plus one buffer growth step).");

  public static final ConfigOption<Boolean> STABLE_ROW_IDS =
      ConfigOptions.key("table.stable-row-ids")
          .booleanType()
          .defaultValue(false)
          .withDescription(
              "Enable Lance stable row ids when the sink creates the table. Ignored for an"
                  + " existing table.");

  public static final ConfigOption<String> DATA_STORAGE_VERSION =
      ConfigOptions.key("table.data-storage-version")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "Lance file format version used when the sink creates the table (for example 2.1"
                  + " or 2.2). Default: Lance's default, or 2.2 when the schema has a MAP"
                  + " column (MAP needs 2.2). An existing table keeps its own version.");

  public static final ConfigOption<Map<String, String>> VECTOR_COLUMNS =
      ConfigOptions.key("vector-columns")
          .mapType()
          .defaultValue(Map.of())
          .withDescription(
              "Top-level ARRAY columns written as fixed-dimension vectors (Arrow"
                  + " FixedSizeList), as column:dimension pairs, for example 'embedding:768'."
                  + " Columns that are FixedSizeList in an existing table are detected"
                  + " automatically.");

  public static final ConfigOption<Integer> COMMIT_MAX_RETRIES =
      ConfigOptions.key("commit.max-conflict-retries")
          .intType()
          .defaultValue(20)
          .withDescription(
              "How often Lance retries a commit that conflicts with a concurrent writer before"
                  + " the committer gives up on the attempt.");

  public static final ConfigOption<Integer> COMMIT_MAX_ATTEMPTS =
      ConfigOptions.key("commit.max-attempts")
          .intType()
          .defaultValue(5)
          .withDescription(
              "How often the committer tries one checkpoint's commit when Lance fails (for"
                  + " example an object-store error), with exponential backoff from 500 ms. Before"
                  + " each retry it checks whether the failed attempt landed after all. When all"
                  + " attempts fail the job fails and, after its restart, the commit is replayed.");

  public static final ConfigOption<Integer> DEDUPE_MAX_VERSIONS =
      ConfigOptions.key("commit.dedupe.max-versions")
          .intType()
          .defaultValue(10_000)
          .withDescription(
              "After a restore, how many table versions the committer reads back, newest"
                  + " first, to find its last commit. If none is found within this bound (or"
                  + " older versions were cleaned up) it logs a WARN and commits.");

  private LanceSinkOptions() {}
}
