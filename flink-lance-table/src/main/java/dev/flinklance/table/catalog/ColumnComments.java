package dev.flinklance.table.catalog;

import dev.flinklance.schema.SchemaEvolution;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.catalog.Column;

/**
 * Column comments, kept in each Lance field's metadata under {@link SchemaEvolution#COMMENT}
 * (Spark's key): every engine that reads the table sees them, and comments other clients wrote show
 * in DESCRIBE and SHOW CREATE TABLE.
 */
final class ColumnComments {
  private ColumnComments() {}

  /** {@code schema} with the comments of {@code columns} (by name) in its fields' metadata. */
  static Schema store(Schema schema, List<Column> columns) {
    Map<String, Optional<String>> comments = new HashMap<>();
    columns.forEach(column -> comments.put(column.getName(), column.getComment()));
    return new Schema(
        schema.getFields().stream()
            .map(
                field ->
                    withComment(field, comments.getOrDefault(field.getName(), Optional.empty())))
            .toList(),
        schema.getCustomMetadata());
  }

  /** The field with {@code comment} in its metadata; the field itself if there is none. */
  static Field withComment(Field field, Optional<String> comment) {
    if (comment.isEmpty() || comment.get().isEmpty()) {
      return field;
    }
    Map<String, String> metadata =
        field.getMetadata() == null ? new HashMap<>() : new HashMap<>(field.getMetadata());
    metadata.put(SchemaEvolution.COMMENT, comment.get());
    FieldType type = field.getFieldType();
    return new Field(
        field.getName(),
        new FieldType(type.isNullable(), type.getType(), type.getDictionary(), metadata),
        field.getChildren());
  }

  /** The comment of a table's column, if it has one. */
  static Optional<String> of(Schema schema, String column) {
    return schema.getFields().stream()
        .filter(field -> field.getName().equals(column))
        .findFirst()
        .map(Field::getMetadata)
        .map(metadata -> metadata.get(SchemaEvolution.COMMENT));
  }
}
