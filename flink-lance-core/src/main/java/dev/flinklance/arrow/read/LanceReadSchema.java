package dev.flinklance.arrow.read;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.types.logical.RowType;
import org.lance.Dataset;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;
import org.lance.schema.LanceSchema;

/**
 * The schema a scan of a Lance table produces, with the value types of its dictionary-encoded
 * columns. {@link Dataset#getSchema()} drops dictionary encodings (a dictionary of strings shows as
 * its int indices); a scan's reader knows them from its schema alone, so this opens one that reads
 * no row.
 */
@Internal
public final class LanceReadSchema {
  private final Schema schema;
  private final Map<Long, Field> dictionaryValues;
  private final LanceSchema lanceSchema;

  private LanceReadSchema(
      Schema schema, Map<Long, Field> dictionaryValues, LanceSchema lanceSchema) {
    this.schema = schema;
    this.dictionaryValues = dictionaryValues;
    this.lanceSchema = lanceSchema;
  }

  /**
   * @throws Exception as Lance throws it (the caller names the table)
   */
  public static LanceReadSchema of(Dataset dataset) throws Exception {
    try (LanceScanner scanner = dataset.newScan(new ScanOptions.Builder().limit(0).build());
        ArrowReader reader = scanner.scanBatches()) {
      Schema schema = reader.getVectorSchemaRoot().getSchema();
      Map<Long, Field> values = new HashMap<>();
      for (long id : reader.getDictionaryIds()) {
        values.put(id, reader.lookup(id).getVector().getField());
      }
      return new LanceReadSchema(schema, Map.copyOf(values), lanceFieldsOf(dataset).orElse(null));
    }
  }

  /**
   * A version's fields with their Lance ids; empty where lance-core 7.0.0 cannot describe them
   * ("ArrowSchema conversion error" for some encodings other writers produce, such as
   * dictionaries): the checks that tell columns apart by id then go by name, as before.
   */
  public static Optional<LanceSchema> lanceFieldsOf(Dataset dataset) {
    try {
      return Optional.of(dataset.getLanceSchema());
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /**
   * The schema with Lance's field ids ({@link LostColumns} tells renames by them), where Lance can
   * describe the fields.
   */
  public Optional<LanceSchema> lanceSchema() {
    return Optional.ofNullable(lanceSchema);
  }

  public Schema schema() {
    return schema;
  }

  public List<String> columnNames() {
    return schema.getFields().stream().map(Field::getName).toList();
  }

  public Optional<Field> field(String column) {
    return schema.getFields().stream().filter(f -> f.getName().equals(column)).findFirst();
  }

  /** The type of a column's values (a dictionary-encoded column's dictionary type). */
  public ArrowType valueType(Field field) {
    return ArrowTypeConverter.valueType(field, dictionaryValues::get);
  }

  /**
   * @throws UnsupportedArrowTypeException naming the first column without a Flink type
   */
  public RowType rowType() {
    return ArrowTypeConverter.toRowType(schema, dictionaryValues::get);
  }

  /**
   * The Flink types of some columns, in the given order.
   *
   * @throws IllegalArgumentException naming a column that does not exist
   * @throws UnsupportedArrowTypeException naming a column without a Flink type
   */
  public RowType rowType(List<String> columns) {
    return new RowType(
        columns.stream()
            .map(
                name ->
                    new RowType.RowField(
                        name,
                        ArrowTypeConverter.toLogicalType(column(name), dictionaryValues::get)))
            .toList());
  }

  private Field column(String name) {
    return field(name)
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    String.format(
                        "Column '%s' does not exist in the table; columns are %s",
                        name, columnNames())));
  }
}
