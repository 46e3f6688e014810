package dev.flinklance.dataset;

import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * Options that say which Lance table and how to create it. Sink, source, compactor and catalog all
 * read these keys, so a key means the same in the DataStream API, in SQL and in the catalog.
 */
@PublicEvolving
public final class LanceDatasetOptions {

  /**
   * Every key with this prefix is passed to Lance as a storage option with the prefix removed:
   * {@code storage.aws_region} becomes Lance's {@code aws_region}.
   */
  public static final String STORAGE_PREFIX = "storage.";

  public static final ConfigOption<String> PATH =
      ConfigOptions.key("path")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "URI of the Lance table: a local path, file://, s3://, gs://, az:// or any URI Lance"
                  + " supports. A relative local path is resolved where the job is built.");

  public static final ConfigOption<Map<String, String>> VECTOR_COLUMNS =
      ConfigOptions.key("vector-columns")
          .mapType()
          .defaultValue(Map.of())
          .withDescription(
              "Top-level ARRAY columns stored as fixed-dimension vectors (Arrow FixedSizeList),"
                  + " as column:dimension pairs, for example 'embedding:768'. Columns that are"
                  + " FixedSizeList in an existing table are detected automatically.");

  public static final ConfigOption<Boolean> STABLE_ROW_IDS =
      ConfigOptions.key("stable-row-ids")
          .booleanType()
          .defaultValue(false)
          .withDescription(
              "Enable Lance stable row ids when the table is created. An existing table keeps its"
                  + " own setting.");

  public static final ConfigOption<String> DATA_STORAGE_VERSION =
      ConfigOptions.key("data-storage-version")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "Lance file format version of a table created by the connector, for example 2.1 or"
                  + " 2.2. Default: Lance's default, or 2.2 when the schema has a MAP column (MAP"
                  + " needs 2.2). An existing table keeps its own version.");

  private LanceDatasetOptions() {}

  /**
   * The table at {@code path}, reached with the {@code storage.*} entries of {@code options}. A
   * relative local path is resolved here, where the job is built: each task manager would otherwise
   * resolve it against its own working directory.
   */
  public static LanceDataset dataset(String path, Map<String, String> options) {
    String uri = path.trim();
    if (!uri.contains("://")) {
      uri = Path.of(uri).toAbsolutePath().normalize().toString();
    }
    return new LanceDataset(uri, storageOptions(options));
  }

  /** The Lance storage options among {@code options}: every {@code storage.*} key, unprefixed. */
  public static Map<String, String> storageOptions(Map<String, String> options) {
    Map<String, String> storage = new TreeMap<>();
    options.forEach(
        (key, value) -> {
          if (key.startsWith(STORAGE_PREFIX) && key.length() > STORAGE_PREFIX.length()) {
            storage.put(key.substring(STORAGE_PREFIX.length()), value);
          }
        });
    return storage;
  }
}
