package dev.flinklance.arrow;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.annotation.Internal;

/**
 * The compression a new table's columns are created with, as Lance's Arrow field metadata ({@code
 * lance-encoding:compression}, {@code lance-encoding:compression-level}). Lance compresses a leaf
 * column by the metadata of its own field, so a nested column's every field carries it. Lance
 * writes each fragment with the metadata of the stream it is given; the sink streams in the table's
 * schema, so an existing table keeps the compression it was created with.
 *
 * @param tableDefault every column's, except vector (FixedSizeList) columns: lance-core 7.0.0
 *     leaves them uncompressed whatever their metadata says, and embeddings hardly compress
 * @param zstdLevel the zstd level (1 to 22), or null for Lance's default
 * @param columns top-level columns with a compression of their own
 */
@Internal
public record ColumnCompression(
    Compression tableDefault, Integer zstdLevel, Map<String, Compression> columns)
    implements Serializable {
  public static final String SCHEME_KEY = "lance-encoding:compression";
  public static final String LEVEL_KEY = "lance-encoding:compression-level";
  public static final int MIN_ZSTD_LEVEL = 1;
  public static final int MAX_ZSTD_LEVEL = 22;

  /** Lance's own encodings for every column. */
  public static final ColumnCompression NONE =
      new ColumnCompression(Compression.NONE, null, Map.of());

  public ColumnCompression {
    Objects.requireNonNull(tableDefault);
    columns = Map.copyOf(columns);
  }

  /** Whether any column is compressed (format 2.0 compresses none). */
  public boolean compressesAny() {
    return tableDefault != Compression.NONE
        || columns.values().stream().anyMatch(c -> c != Compression.NONE);
  }

  /** Whether any column is compressed with zstd (the only codec with a level). */
  public boolean usesZstd() {
    return tableDefault == Compression.ZSTD || columns.containsValue(Compression.ZSTD);
  }

  /** Whether a field of {@code schema}, at any depth, carries Lance compression metadata. */
  public static boolean compressesAny(Schema schema) {
    return schema.getFields().stream().anyMatch(ColumnCompression::compressed);
  }

  private static boolean compressed(Field field) {
    String scheme = field.getMetadata().get(SCHEME_KEY);
    return (scheme != null && !scheme.equalsIgnoreCase("none"))
        || field.getChildren().stream().anyMatch(ColumnCompression::compressed);
  }

  /**
   * @return the names among {@link #columns()} that are not top-level columns of {@code schema}
   */
  public List<String> unknownColumns(Schema schema) {
    List<String> unknown = new ArrayList<>();
    for (String column : columns.keySet()) {
      if (schema.getFields().stream().noneMatch(f -> f.getName().equals(column))) {
        unknown.add(column);
      }
    }
    return unknown;
  }

  /** {@code schema} with each column's compression in its fields' metadata. */
  public Schema applyTo(Schema schema) {
    List<Field> fields = new ArrayList<>();
    for (Field field : schema.getFields()) {
      Compression compression =
          columns.getOrDefault(
              field.getName(),
              field.getType() instanceof ArrowType.FixedSizeList ? Compression.NONE : tableDefault);
      fields.add(compression == Compression.NONE ? field : withCompression(field, compression));
    }
    return new Schema(fields, schema.getCustomMetadata());
  }

  private Field withCompression(Field field, Compression compression) {
    Map<String, String> metadata = new HashMap<>(field.getMetadata());
    metadata.put(SCHEME_KEY, compression.lanceScheme());
    if (compression == Compression.ZSTD && zstdLevel != null) {
      metadata.put(LEVEL_KEY, Integer.toString(zstdLevel));
    }
    List<Field> children = new ArrayList<>();
    for (Field child : field.getChildren()) {
      children.add(withCompression(child, compression));
    }
    FieldType type =
        new FieldType(field.isNullable(), field.getType(), field.getDictionary(), metadata);
    return new Field(field.getName(), type, children);
  }
}
