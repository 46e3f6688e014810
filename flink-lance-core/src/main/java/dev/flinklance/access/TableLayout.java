package dev.flinklance.access;

import static dev.flinklance.access.LanceDatasetOptions.DATA_STORAGE_VERSION;
import static dev.flinklance.access.LanceDatasetOptions.SINK_COMPRESSION;
import static dev.flinklance.access.LanceDatasetOptions.SINK_COMPRESSION_COLUMNS;
import static dev.flinklance.access.LanceDatasetOptions.SINK_COMPRESSION_LEVEL;
import static dev.flinklance.access.LanceDatasetOptions.STABLE_ROW_IDS;
import static dev.flinklance.access.LanceDatasetOptions.VECTOR_COLUMNS;

import dev.flinklance.arrow.ArrowSchemaConverter;
import dev.flinklance.arrow.ColumnCompression;
import dev.flinklance.arrow.Compression;
import dev.flinklance.config.OptionChecks;
import java.io.Serializable;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.types.logical.RowType;

/**
 * How a table the connector creates is laid out: stable row ids, the file format version, the
 * vector columns and each column's compression, and so its Lance schema for a Flink row type. The
 * options are the same keys in DataStream, SQL and the catalog, validated here in one place; the
 * sink and the catalog's CREATE TABLE both create tables by it. An existing table keeps its own.
 */
@Internal
public final class TableLayout implements Serializable {
  private static final long serialVersionUID = 1L;

  /** File format versions that write no compression, as Lance names them. */
  private static final Set<String> UNCOMPRESSED_FORMATS = Set.of("0.1", "2.0", "legacy");

  private final boolean stableRowIds;
  private final String dataStorageVersion;
  private final Map<String, Integer> vectorColumns;
  private final ColumnCompression compression;

  private TableLayout(ReadableConfig conf) {
    this.stableRowIds = conf.get(STABLE_ROW_IDS);
    this.dataStorageVersion = conf.get(DATA_STORAGE_VERSION);
    this.vectorColumns = parseVectorColumns(conf.get(VECTOR_COLUMNS));
    this.compression = parseCompression(conf, dataStorageVersion);
  }

  /**
   * @throws IllegalArgumentException naming the first invalid option
   */
  public static TableLayout from(ReadableConfig conf) {
    return new TableLayout(conf);
  }

  public boolean stableRowIds() {
    return stableRowIds;
  }

  /** The file format version configured, or null for the connector's choice. */
  public String dataStorageVersion() {
    return dataStorageVersion;
  }

  public Map<String, Integer> vectorColumns() {
    return vectorColumns;
  }

  /**
   * The Lance schema of a new table for {@code rowType}: vector columns as FixedSizeList, each
   * column's compression in its field metadata.
   *
   * @throws dev.flinklance.arrow.UnsupportedTypeException naming a column Lance cannot store
   * @throws IllegalArgumentException naming the option of a column the rows do not have
   */
  public Schema schemaFor(RowType rowType) {
    Schema columns = ArrowSchemaConverter.toArrowSchema(rowType, vectorColumns);
    List<String> unknown = compression.unknownColumns(columns);
    if (!unknown.isEmpty()) {
      throw invalid(
          SINK_COMPRESSION_COLUMNS,
          String.format("no column %s; columns are %s", unknown, rowType.getFieldNames()));
    }
    return compression.applyTo(columns);
  }

  /** The file format version a new table with {@code schema} is created in. */
  public String storageVersionFor(Schema schema) {
    return ArrowSchemaConverter.storageVersionFor(schema, dataStorageVersion);
  }

  private static Map<String, Integer> parseVectorColumns(Map<String, String> raw) {
    Map<String, Integer> parsed = new LinkedHashMap<>();
    raw.forEach(
        (column, dimension) -> {
          try {
            parsed.put(column, Integer.parseInt(dimension.trim()));
          } catch (NumberFormatException e) {
            throw invalid(
                VECTOR_COLUMNS,
                String.format("dimension of '%s' is not a number: '%s'", column, dimension));
          }
        });
    return Map.copyOf(parsed);
  }

  private static ColumnCompression parseCompression(ReadableConfig conf, String storageVersion) {
    Map<String, Compression> columns = new LinkedHashMap<>();
    conf.get(SINK_COMPRESSION_COLUMNS)
        .forEach((column, value) -> columns.put(column, parseCompression(column, value)));
    Integer level = conf.get(SINK_COMPRESSION_LEVEL);
    ColumnCompression compression =
        new ColumnCompression(conf.get(SINK_COMPRESSION), level, columns);
    boolean uncompressedFormat =
        storageVersion != null
            && UNCOMPRESSED_FORMATS.contains(storageVersion.trim().toLowerCase(Locale.ROOT));
    boolean chosen =
        conf.getOptional(SINK_COMPRESSION).isPresent()
            || conf.getOptional(SINK_COMPRESSION_COLUMNS).isPresent();
    if (uncompressedFormat && !chosen && level == null) {
      return ColumnCompression.NONE; // the default compression is for formats that have it
    }
    if (uncompressedFormat && compression.compressesAny()) {
      throw invalid(
          conf.getOptional(SINK_COMPRESSION).isPresent()
              ? SINK_COMPRESSION
              : SINK_COMPRESSION_COLUMNS,
          String.format(
              "file format %s ('%s') writes no compression; create the table with 2.1 or later,"
                  + " or set NONE",
              storageVersion.trim(), DATA_STORAGE_VERSION.key()));
    }
    if (level != null) {
      if (level < ColumnCompression.MIN_ZSTD_LEVEL || level > ColumnCompression.MAX_ZSTD_LEVEL) {
        throw invalid(
            SINK_COMPRESSION_LEVEL,
            String.format(
                "a zstd level is %d to %d, got %d",
                ColumnCompression.MIN_ZSTD_LEVEL, ColumnCompression.MAX_ZSTD_LEVEL, level));
      }
      if (!compression.usesZstd()) {
        throw invalid(
            SINK_COMPRESSION_LEVEL, "is the level of zstd, but no column is compressed with zstd");
      }
    }
    return compression;
  }

  private static Compression parseCompression(String column, String value) {
    try {
      return Compression.valueOf(value.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw invalid(
          SINK_COMPRESSION_COLUMNS,
          String.format(
              "compression of column '%s' must be one of %s, got '%s'",
              column, Arrays.toString(Compression.values()), value));
    }
  }

  private static IllegalArgumentException invalid(ConfigOption<?> option, String problem) {
    return OptionChecks.invalid(option.key(), "Lance sink", problem);
  }
}
