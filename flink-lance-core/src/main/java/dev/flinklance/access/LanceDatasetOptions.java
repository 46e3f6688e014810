package dev.flinklance.access;

import dev.flinklance.arrow.Compression;
import dev.flinklance.config.OptionChecks;
import dev.flinklance.namespace.NamespaceConnection;
import dev.flinklance.namespace.NamespaceTable;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.util.TimeUtils;

/**
 * Options that say which Lance table, how to create it and how much its handles cache. Sink,
 * source, compactor and catalog all read these keys, so a key means the same in the DataStream API,
 * in SQL and in the catalog.
 */
@PublicEvolving
public final class LanceDatasetOptions {
  /** Whose options these are, in the messages of {@link OptionChecks}. */
  private static final String KIND = "Lance table";

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
                  + " 2.2. Default: Lance's default (2.1 in lance-core 7.0.0), or 2.2 when the"
                  + " schema has a MAP column (MAP needs 2.2) or a compressed column"
                  + " (sink.compression, sink.compression.columns: 2.2 compresses better, see"
                  + " docs/benchmark.md). An existing table keeps its own version.");

  public static final ConfigOption<Compression> SINK_COMPRESSION =
      ConfigOptions.key("sink.compression")
          .enumType(Compression.class)
          .defaultValue(Compression.NONE)
          .withDescription(
              "Compression of the columns of a table the sink creates, on top of Lance's own"
                  + " encodings (bit packing, dictionaries, FSST): ZSTD, LZ4 or NONE. Both take"
                  + " about half the bytes of NONE on narrow event rows and cost write and scan"
                  + " speed (docs/benchmark.md has the figures), hence the default NONE. A new table"
                  + " with a compressed column is created in file format 2.2 unless"
                  + " data-storage-version says otherwise (2.2 compresses better)."
                  + " Vector columns take only sink.compression.columns (lance-core 7.0.0 writes"
                  + " them uncompressed anyway). An existing table keeps the compression its"
                  + " schema says. Needs file format 2.1 or later: with data-storage-version 2.0"
                  + " it is refused.");

  public static final ConfigOption<Integer> SINK_COMPRESSION_LEVEL =
      ConfigOptions.key("sink.compression-level")
          .intType()
          .noDefaultValue()
          .withDescription(
              "Zstandard level (1 to 22) of the zstd columns of a table the sink creates. Default:"
                  + " Lance's own. Refused when no column is compressed with zstd.");

  public static final ConfigOption<Map<String, String>> SINK_COMPRESSION_COLUMNS =
      ConfigOptions.key("sink.compression.columns")
          .mapType()
          .defaultValue(Map.of())
          .withDescription(
              "Top-level columns with a compression of their own in a table the sink creates, as"
                  + " column:compression pairs, for example 'payload:zstd,id:none'; a nested"
                  + " column's fields all take its compression. The other columns take"
                  + " sink.compression.");

  /** What a writer does about an object store that ignores create-only PUTs. */
  @PublicEvolving
  public enum ConditionalPutCheck {
    /** Probe the store; fail if it ignores create-only PUTs. */
    FAIL,
    /** Probe the store; log a warning if it ignores create-only PUTs. */
    WARN,
    /** Do not probe. */
    SKIP
  }

  public static final ConfigOption<ConditionalPutCheck> OBJECT_STORE_CONDITIONAL_PUT_CHECK =
      ConfigOptions.key("object-store.conditional-put-check")
          .enumType(ConditionalPutCheck.class)
          .defaultValue(ConditionalPutCheck.FAIL)
          .withDescription(
              "Before the first write to a table on an object store (any URI but a local path or"
                  + " file://), each JVM checks once that the store rejects a second create-only"
                  + " PUT (If-None-Match: *) of the same key, which Lance's commits rely on: on a"
                  + " store that ignores it, concurrent commits silently overwrite each other."
                  + " FAIL stops the job with an error if the store ignores it; WARN logs a"
                  + " warning instead (acceptable when only one writer ever commits to the"
                  + " table); SKIP does not check. See docs/object-stores.md.");

  public static final ConfigOption<MemorySize> METADATA_CACHE_SIZE =
      ConfigOptions.key("metadata-cache-size")
          .memoryType()
          .defaultValue(new MemorySize(SessionCaches.DEFAULT.metadataBytes()))
          .withDescription(
              "Limit of the Lance metadata cache (manifests, deletion files, the metadata of each"
                  + " data file read) of the table's Lance session, which every handle the"
                  + " connector opens on the table in a JVM shares, by Lance's count (the memory"
                  + " it takes is about 2.5 times that). Handles a job keeps open (a committer's,"
                  + " a lookup's) move to each new version, and the cache keeps the metadata of the"
                  + " versions they read until the limit. Native memory outside Flink's memory"
                  + " model: see docs/deployment.md#memory.");

  public static final ConfigOption<MemorySize> INDEX_CACHE_SIZE =
      ConfigOptions.key("index-cache-size")
          .memoryType()
          .defaultValue(new MemorySize(SessionCaches.DEFAULT.indexBytes()))
          .withDescription(
              "Limit of the Lance index cache (pages of a BTree key index, partitions of a vector"
                  + " index) of the table's Lance session, which every handle the connector opens"
                  + " on the table in a JVM shares, by Lance's count. Raise it"
                  + " for lookups and upserts on tables whose key index is larger (about 16 bytes"
                  + " a row) or vector searches that probe more partitions. Native memory outside"
                  + " Flink's memory model: see docs/deployment.md#memory.");

  /**
   * Keys by which a catalog hands the connector the Lance Namespace that serves a table (not SQL
   * options: a table declares none of them, its catalog adds them): {@code lance-namespace.impl},
   * {@code lance-namespace.timeout}, {@code lance-namespace.table-id} (the id's parts, each
   * URL-encoded, joined by {@code .}) and {@code lance-namespace.property.*}.
   */
  public static final String NAMESPACE_PREFIX = "lance-namespace.";

  private static final String NAMESPACE_IMPL = NAMESPACE_PREFIX + "impl";
  private static final String NAMESPACE_TIMEOUT = NAMESPACE_PREFIX + "timeout";
  private static final String NAMESPACE_TABLE_ID = NAMESPACE_PREFIX + "table-id";
  private static final String NAMESPACE_PROPERTY = NAMESPACE_PREFIX + "property.";

  private LanceDatasetOptions() {}

  /**
   * The table that {@code options} (as a job, SQL or the catalog gives them) describe at {@code
   * uri}: its {@code storage.*} options and the object-store checks to run before writing. A
   * relative local path is resolved here, where the job is built: each task manager would otherwise
   * resolve it against its own working directory.
   */
  @Internal
  public static TableRef dataset(String uri, Configuration options) {
    String resolved = uri.trim();
    if (!resolved.contains("://")) {
      resolved = Path.of(resolved).toAbsolutePath().normalize().toString();
    }
    Map<String, String> all = options.toMap();
    return new TableRef(
            resolved,
            storageOptions(all),
            options.get(OBJECT_STORE_CONDITIONAL_PUT_CHECK),
            namespaceTable(all))
        .withSessionCaches(sessionCaches(options));
  }

  /** The cache limits of {@link #METADATA_CACHE_SIZE} and {@link #INDEX_CACHE_SIZE}. */
  @Internal
  public static SessionCaches sessionCaches(Configuration options) {
    return new SessionCaches(
        positiveBytes(options, METADATA_CACHE_SIZE), positiveBytes(options, INDEX_CACHE_SIZE));
  }

  private static long positiveBytes(Configuration options, ConfigOption<MemorySize> option) {
    long bytes = OptionChecks.parse(options, option, KIND).getBytes();
    OptionChecks.require(bytes > 0, option.key(), KIND, "must be more than 0 bytes");
    return bytes;
  }

  /**
   * The options that make {@link #dataset} give {@code table} back: its path, its configured
   * storage options and its namespace; for jobs started from a table (procedures).
   */
  @Internal
  public static Map<String, String> toOptions(TableRef table) {
    Map<String, String> options =
        accessOptions(table.configuredStorageOptions(), table.namespaceTable().orElse(null));
    options.put(PATH.key(), table.uri());
    SessionCaches caches = table.sessionCaches();
    options.put(METADATA_CACHE_SIZE.key(), caches.metadataBytes() + "b");
    options.put(INDEX_CACHE_SIZE.key(), caches.indexBytes() + "b");
    return options;
  }

  /**
   * The options that give a table these storage options ({@code storage.*}) and, unless null, this
   * namespace ({@link #NAMESPACE_PREFIX}).
   */
  @Internal
  public static Map<String, String> accessOptions(
      Map<String, String> storageOptions, NamespaceTable table) {
    Map<String, String> options = new TreeMap<>();
    storageOptions.forEach((key, value) -> options.put(STORAGE_PREFIX + key, value));
    if (table == null) {
      return options;
    }
    NamespaceConnection namespace = table.namespace();
    options.put(NAMESPACE_IMPL, namespace.impl());
    options.put(NAMESPACE_TIMEOUT, namespace.timeout().toMillis() + " ms");
    options.put(
        NAMESPACE_TABLE_ID,
        table.id().stream()
            .map(part -> URLEncoder.encode(part, StandardCharsets.UTF_8).replace(".", "%2E"))
            .collect(Collectors.joining(".")));
    namespace.properties().forEach((key, value) -> options.put(NAMESPACE_PROPERTY + key, value));
    return options;
  }

  private static NamespaceTable namespaceTable(Map<String, String> options) {
    String impl = options.get(NAMESPACE_IMPL);
    if (impl == null) {
      return null;
    }
    Map<String, String> properties = new TreeMap<>();
    options.forEach(
        (key, value) -> {
          if (key.startsWith(NAMESPACE_PROPERTY)) {
            properties.put(key.substring(NAMESPACE_PROPERTY.length()), value);
          }
        });
    List<String> id =
        Arrays.stream(options.get(NAMESPACE_TABLE_ID).split("\\."))
            .map(part -> URLDecoder.decode(part, StandardCharsets.UTF_8))
            .toList();
    Duration timeout = TimeUtils.parseDuration(options.get(NAMESPACE_TIMEOUT));
    return new NamespaceTable(new NamespaceConnection(impl, properties, timeout), id);
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
