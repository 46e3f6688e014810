package dev.flinklance.key;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.StringJoiner;
import java.util.function.IntConsumer;
import java.util.function.IntFunction;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.lance.schema.LanceField;
import org.lance.schema.LanceSchema;

/**
 * The primary key of a sink's rows: which columns, of which {@link KeyType}, at which positions of
 * the sink's row type. It extracts {@link RowKey}s from Flink rows and from a table's scan batches,
 * and records itself in a new table's schema the way Lance 7.0.0 declares an unenforced primary key
 * (field metadata {@value #LANCE_PRIMARY_KEY} and {@value #LANCE_PRIMARY_KEY_POSITION}, 1-based;
 * Lance requires the columns NOT NULL and fixes the key once set).
 */
@Internal
public final class PrimaryKey implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Keys travel in write results and committables with their column count in one byte. */
  static final int MAX_COLUMNS = Byte.MAX_VALUE;

  public static final String LANCE_PRIMARY_KEY = "lance-schema:unenforced-primary-key";
  public static final String LANCE_PRIMARY_KEY_POSITION =
      "lance-schema:unenforced-primary-key:position";

  private final List<String> columns;
  private final List<KeyType> kinds;
  private final List<LogicalType> types;
  private final int[] positions;

  private PrimaryKey(
      List<String> columns, List<KeyType> kinds, List<LogicalType> types, int[] positions) {
    this.columns = List.copyOf(columns);
    this.kinds = List.copyOf(kinds);
    this.types = List.copyOf(types);
    this.positions = positions;
  }

  /**
   * @param table names the table in messages
   * @throws IllegalArgumentException naming the table and the column: no columns, a column named
   *     twice, not in the row type, or of a type that cannot be a key
   */
  public static PrimaryKey of(RowType rowType, List<String> columns, String table) {
    if (columns.isEmpty()) {
      throw new IllegalArgumentException(
          String.format("Primary key of Lance table '%s' names no column", table));
    }
    if (columns.size() > MAX_COLUMNS) {
      throw new IllegalArgumentException(
          String.format(
              "Primary key of Lance table '%s' names %d columns; at most %d are supported",
              table, columns.size(), MAX_COLUMNS));
    }
    List<KeyType> kinds = new ArrayList<>();
    List<LogicalType> types = new ArrayList<>();
    int[] positions = new int[columns.size()];
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < columns.size(); i++) {
      String column = columns.get(i);
      if (!seen.add(column)) {
        throw new IllegalArgumentException(
            String.format(
                "Primary key of Lance table '%s' names column '%s' twice", table, column));
      }
      int position = rowType.getFieldIndex(column);
      if (position < 0) {
        throw new IllegalArgumentException(
            String.format(
                "Primary key column '%s' of Lance table '%s' is not a column of the sink's rows %s",
                column, table, rowType.getFieldNames()));
      }
      LogicalType type = rowType.getTypeAt(position);
      kinds.add(
          KeyType.of(type)
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          String.format(
                              "Primary key column '%s' of Lance table '%s' has type %s, which"
                                  + " cannot be a key (Lance's BTree key index and the key"
                                  + " lookup take %s)",
                              column, table, type.asSummaryString(), KeyType.SUPPORTED))));
      types.add(type);
      positions[i] = position;
    }
    return new PrimaryKey(columns, kinds, types, positions);
  }

  public List<String> columns() {
    return columns;
  }

  /** {@code (id, tenant)}: for messages. */
  @Override
  public String toString() {
    return "(" + String.join(", ", columns) + ")";
  }

  /** The row type with the key's columns NOT NULL, as Lance wants primary key columns. */
  public RowType withKeysNotNull(RowType rowType) {
    List<RowType.RowField> fields = new ArrayList<>(rowType.getFields());
    for (int position : positions) {
      RowType.RowField field = fields.get(position);
      fields.set(
          position,
          new RowType.RowField(
              field.getName(), field.getType().copy(false), field.getDescription().orElse(null)));
    }
    return new RowType(rowType.isNullable(), fields);
  }

  /** {@code schema} (a new table's) with the key's columns declared as Lance's primary key. */
  public Schema declareIn(Schema schema) {
    List<Field> fields = new ArrayList<>();
    for (Field field : schema.getFields()) {
      int index = columns.indexOf(field.getName());
      if (index < 0) {
        fields.add(field);
        continue;
      }
      Map<String, String> metadata = new HashMap<>();
      if (field.getMetadata() != null) {
        metadata.putAll(field.getMetadata());
      }
      metadata.put(LANCE_PRIMARY_KEY, "true");
      metadata.put(LANCE_PRIMARY_KEY_POSITION, Integer.toString(index + 1));
      FieldType type =
          new FieldType(false, field.getType(), field.getDictionary(), Map.copyOf(metadata));
      fields.add(new Field(field.getName(), type, field.getChildren()));
    }
    return new Schema(fields, schema.getCustomMetadata());
  }

  /** The primary key a Lance table declares (its columns in key order), if any. */
  public static Optional<List<String>> declaredBy(LanceSchema schema) {
    List<LanceField> key = new ArrayList<>(schema.getUnenforcedPrimaryKey());
    if (key.isEmpty()) {
      return Optional.empty();
    }
    key.sort(
        Comparator.comparingInt(
                (LanceField f) -> f.getUnenforcedPrimaryKeyPosition().orElse(Integer.MAX_VALUE))
            .thenComparingInt(LanceField::getId));
    return Optional.of(key.stream().map(LanceField::getName).toList());
  }

  /**
   * The primary key a table declares, read from its Arrow schema's field metadata: for readers of
   * any table, as lance-core 7.0.0 cannot give the {@link LanceSchema} of some other writers'
   * encodings ("ArrowSchema conversion error") that it reads and scans.
   */
  public static Optional<List<String>> declaredBy(Schema schema) {
    List<Field> key =
        schema.getFields().stream()
            .filter(f -> "true".equals(metadata(f).get(LANCE_PRIMARY_KEY)))
            .toList();
    if (key.isEmpty()) {
      return Optional.empty();
    }
    List<Field> ordered = new ArrayList<>(key);
    ordered.sort(
        Comparator.comparingInt(
            (Field f) -> {
              String position = metadata(f).get(LANCE_PRIMARY_KEY_POSITION);
              return position == null ? Integer.MAX_VALUE : Integer.parseInt(position.trim());
            }));
    return Optional.of(ordered.stream().map(Field::getName).toList());
  }

  private static Map<String, String> metadata(Field field) {
    return field.getMetadata() == null ? Map.of() : field.getMetadata();
  }

  /**
   * Checks that an existing table can take this key: each key column is a top-level column of a key
   * type, and a primary key the table declares is this one.
   *
   * @throws IllegalArgumentException naming the table and the column
   */
  public void checkTable(LanceSchema table, String uri) {
    Optional<List<String>> declared = declaredBy(table);
    if (declared.isPresent() && !declared.get().equals(columns)) {
      throw new IllegalArgumentException(
          String.format(
              "Lance table '%s' has primary key (%s), the sink's rows have primary key %s",
              uri, String.join(", ", declared.get()), this));
    }
    for (String column : columns) {
      LanceField field =
          table.fields().stream()
              .filter(f -> f.getName().equals(column))
              .findFirst()
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          String.format(
                              "Primary key column '%s' is not a column of Lance table '%s'",
                              column, uri)));
      if (KeyType.of(field.getType()).isEmpty()) {
        throw new IllegalArgumentException(
            String.format(
                "Primary key column '%s' of Lance table '%s' holds %s, which cannot be a key"
                    + " (supported: %s)",
                column, uri, field.getType(), KeyType.SUPPORTED));
      }
    }
  }

  /**
   * A sink without a primary key appends: into a table that declares one it would write rows whose
   * keys are already there.
   *
   * @throws IllegalArgumentException if the table declares a primary key
   */
  public static void requireNoKey(LanceSchema table, String uri) {
    Optional<List<String>> declared = declaredBy(table);
    if (declared.isPresent()) {
      throw new IllegalArgumentException(
          String.format(
              "Lance table '%s' has primary key (%s): declare it on the sink (PRIMARY KEY (%s) NOT"
                  + " ENFORCED in SQL, primaryKey(...) on LanceSinkBuilder) so that rows replace"
                  + " the rows of their key instead of being appended next to them",
              uri, String.join(", ", declared.get()), String.join(", ", declared.get())));
    }
  }

  /** The first key column that is NULL in {@code row}, or null if none is. */
  public String nullColumn(RowData row) {
    for (int i = 0; i < positions.length; i++) {
      if (row.isNullAt(positions[i])) {
        return columns.get(i);
      }
    }
    return null;
  }

  /** The key of a row whose key columns are not NULL ({@link #nullColumn}). */
  public RowKey keyOf(RowData row) {
    Object[] values = new Object[positions.length];
    for (int i = 0; i < positions.length; i++) {
      values[i] = kinds.get(i).read(row, positions[i], types.get(i));
    }
    return new RowKey(values);
  }

  /**
   * A Lance SQL filter that every row of {@code keys} passes (and maybe other rows, for a composite
   * key: one IN list per column), or empty if a value has no exact Lance literal or a column name
   * cannot be quoted.
   */
  public Optional<String> filterFor(Collection<RowKey> keys) {
    StringJoiner filter = new StringJoiner(" AND ");
    for (int column = 0; column < columns.size(); column++) {
      String name = columns.get(column);
      if (name.indexOf('`') >= 0) {
        return Optional.empty();
      }
      Set<String> literals = new LinkedHashSet<>();
      for (RowKey key : keys) {
        Optional<String> literal = kinds.get(column).literal(key.value(column));
        if (literal.isEmpty()) {
          return Optional.empty();
        }
        literals.add(literal.get());
      }
      filter.add("`" + name + "` IN (" + String.join(", ", literals) + ")");
    }
    return Optional.of(filter.toString());
  }

  /**
   * Which rows of scan batches hold one of {@code keys}. The batches carry the key's columns by
   * name.
   */
  public KeyMatcher matcher(Collection<RowKey> keys) {
    if (columns.size() == 1 && kinds.get(0) == KeyType.INTEGER) {
      return integerMatcher(new LongKeySet(keys.stream().map(key -> (Long) key.value(0)).toList()));
    }
    if (columns.size() == 1) {
      Set<Object> values = new HashSet<>(keys.size() * 2);
      keys.forEach(key -> values.add(key.value(0)));
      return (batch, matched) -> {
        IntFunction<Object> reader = kinds.get(0).reader(batch.getVector(columns.get(0)));
        for (int row = 0; row < batch.getRowCount(); row++) {
          if (values.contains(reader.apply(row))) {
            matched.accept(row);
          }
        }
      };
    }
    Set<RowKey> wanted = new HashSet<>(keys);
    return (batch, matched) -> {
      List<IntFunction<Object>> readers = new ArrayList<>();
      for (int i = 0; i < columns.size(); i++) {
        readers.add(kinds.get(i).reader(batch.getVector(columns.get(i))));
      }
      for (int row = 0; row < batch.getRowCount(); row++) {
        if (holdsWanted(readers, row, wanted)) {
          matched.accept(row);
        }
      }
    };
  }

  /**
   * Matches a single integer column in one loop over the vector's values: the per-row calls of a
   * generic reader (boxing, a lambda per row) took a third of a committer's CPU.
   */
  private KeyMatcher integerMatcher(LongKeySet values) {
    String column = columns.get(0);
    return (batch, matched) -> {
      FieldVector vector = batch.getVector(column);
      int rows = batch.getRowCount();
      boolean nulls = vector.getNullCount() > 0;
      if (vector instanceof BigIntVector longs) {
        ArrowBuf data = longs.getDataBuffer();
        for (int row = 0; row < rows; row++) {
          if (values.contains(data.getLong((long) row * BigIntVector.TYPE_WIDTH))
              && !(nulls && longs.isNull(row))) {
            matched.accept(row);
          }
        }
        return;
      }
      BaseIntVector integers = (BaseIntVector) vector;
      for (int row = 0; row < rows; row++) {
        if (!(nulls && vector.isNull(row)) && values.contains(integers.getValueAsLong(row))) {
          matched.accept(row);
        }
      }
    };
  }

  private static boolean holdsWanted(
      List<IntFunction<Object>> readers, int row, Set<RowKey> wanted) {
    Object[] values = new Object[readers.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = readers.get(i).apply(row);
      if (values[i] == null) {
        return false;
      }
    }
    return wanted.contains(new RowKey(values));
  }

  /** Which rows of a scan batch hold a wanted key. */
  @FunctionalInterface
  public interface KeyMatcher {
    /** Hands each row of {@code batch} that holds a wanted key to {@code matched}, in order. */
    void match(VectorSchemaRoot batch, IntConsumer matched);
  }
}
