package dev.flinklance.testing;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;
import org.lance.Dataset;
import org.lance.WriteParams;

/**
 * A deterministic changelog over a bounded key space, the reference model it must produce, and the
 * same changes applied by Lance's own merge-insert. Change {@code i} is a pure function of {@code
 * i}: the first {@code inserts} changes insert keys 0, 1, 2, ...; then each change picks a key at
 * random and is an INSERT or UPDATE_AFTER (70%), an UPDATE_BEFORE (10%) or a DELETE (20%, half of
 * them carrying the key only, other columns NULL, as upsert sources send them). An UPDATE_BEFORE
 * retracts its row: the model removes its key, as the sink does. Rows are {@code id BIGINT NOT
 * NULL, name STRING, version BIGINT}: {@code version} is the change's number.
 */
public final class Changelog implements java.io.Serializable {
  private static final long serialVersionUID = 1L;

  public static final RowType ROW_TYPE =
      (RowType)
          DataTypes.ROW(
                  DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
                  DataTypes.FIELD("name", DataTypes.STRING()),
                  DataTypes.FIELD("version", DataTypes.BIGINT()))
              .notNull()
              .getLogicalType();

  public static final InternalTypeInfo<RowData> TYPE_INFO = InternalTypeInfo.of(ROW_TYPE);
  public static final List<String> COLUMNS = List.of("id", "name", "version");

  private final long count;
  private final long keySpace;
  private final long inserts;
  private final boolean updateBefore;

  /**
   * @param inserts how many changes at the start insert new keys (0, 1, ...) before random ones
   */
  public Changelog(long count, long keySpace, long inserts) {
    this(count, keySpace, inserts, true);
  }

  private Changelog(long count, long keySpace, long inserts, boolean updateBefore) {
    this.count = count;
    this.keySpace = keySpace;
    this.inserts = inserts;
    this.updateBefore = updateBefore;
  }

  /** The same changelog as an upsert stream: UPDATE_AFTER where this one has UPDATE_BEFORE. */
  public Changelog upsertsOnly() {
    return new Changelog(count, keySpace, inserts, false);
  }

  public long count() {
    return count;
  }

  public RowData change(long i) {
    if (i < inserts) {
      return row(RowKind.INSERT, i, i);
    }
    long mixed = mix(i);
    long key = Math.floorMod(mixed, keySpace);
    int kind = (int) Math.floorMod(mixed >>> 20, 10);
    if (kind < 1) {
      GenericRowData keyOnly = new GenericRowData(RowKind.DELETE, 3);
      keyOnly.setField(0, key);
      return keyOnly;
    }
    if (kind < 2) {
      return row(RowKind.DELETE, key, i);
    }
    if (kind < 3) {
      return row(updateBefore ? RowKind.UPDATE_BEFORE : RowKind.UPDATE_AFTER, key, i);
    }
    return row(kind % 2 == 0 ? RowKind.INSERT : RowKind.UPDATE_AFTER, key, i);
  }

  private static RowData row(RowKind kind, long key, long version) {
    // every seventh name is NULL: a NULL in a non-key column is kept
    StringData name =
        version % 7 == 3 ? null : StringData.fromString("name-" + key + "-" + version);
    GenericRowData row = GenericRowData.of(key, name, version);
    row.setRowKind(kind);
    return row;
  }

  private static long mix(long i) {
    long z = i * 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** A checkpointed source of the changes, in order when read at parallelism 1. */
  public DataGeneratorSource<RowData> source(RateLimiterStrategy rateLimit) {
    return new DataGeneratorSource<>(
        (GeneratorFunction<Long, RowData>) this::change, count, rateLimit, TYPE_INFO);
  }

  /** The rows the changes leave, by key: each key's last change, deleted keys absent. */
  public Map<Long, List<Object>> model() {
    return model(0, count, new TreeMap<>());
  }

  private Map<Long, List<Object>> model(long from, long to, Map<Long, List<Object>> rows) {
    for (long i = from; i < to; i++) {
      RowData change = change(i);
      long key = change.getLong(0);
      if (change.getRowKind() == RowKind.DELETE || change.getRowKind() == RowKind.UPDATE_BEFORE) {
        rows.remove(key);
      } else {
        rows.put(key, values(change));
      }
    }
    return rows;
  }

  private static List<Object> values(RowData row) {
    List<Object> values = new ArrayList<>();
    values.add(row.getLong(0));
    values.add(row.isNullAt(1) ? null : row.getString(1).toString());
    values.add(row.isNullAt(2) ? null : row.getLong(2));
    return values;
  }

  /**
   * The rows of a table written from this changelog, by key.
   *
   * @throws AssertionError if a key has two rows
   */
  public static Map<Long, List<Object>> tableRows(String uri, Map<String, String> storageOptions) {
    Map<Long, List<Object>> rows = new TreeMap<>();
    for (List<Object> row : LanceTestTables.readColumns(uri, storageOptions, COLUMNS)) {
      List<Object> values = new ArrayList<>(row);
      values.set(1, row.get(1) == null ? null : row.get(1).toString());
      List<Object> previous = rows.put((Long) row.get(0), values);
      if (previous != null) {
        throw new AssertionError(
            "key " + row.get(0) + " has two rows in " + uri + ": " + previous + " and " + values);
      }
    }
    return rows;
  }

  /**
   * Applies the changes to a new table at {@code uri} with Lance's own merge-insert, {@code
   * perBatch} changes at a time (each batch collapsed by key, as one checkpoint of the sink):
   * upserts by merge-insert on {@code id}, then deletes by Lance's delete.
   */
  public void applyWithMergeInsert(String uri, long perBatch) {
    Schema schema =
        new Schema(
            List.of(
                new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
                new Field("name", FieldType.nullable(new ArrowType.Utf8()), null),
                new Field("version", FieldType.nullable(new ArrowType.Int(64, true)), null)));
    try (BufferAllocator allocator = new RootAllocator();
        Dataset created =
            Dataset.create(allocator, uri, schema, new WriteParams.Builder().build())) {
      Dataset dataset = created;
      for (long from = 0; from < count; from += perBatch) {
        Map<Long, List<Object>> upserts = new LinkedHashMap<>();
        List<Long> deletes = new ArrayList<>();
        Map<Long, List<Object>> batch = new HashMap<>();
        for (long i = from; i < Math.min(count, from + perBatch); i++) {
          RowData change = change(i);
          boolean removes =
              change.getRowKind() == RowKind.DELETE || change.getRowKind() == RowKind.UPDATE_BEFORE;
          batch.put(change.getLong(0), removes ? null : values(change));
        }
        batch.forEach(
            (key, row) -> {
              if (row == null) {
                deletes.add(key);
              } else {
                upserts.put(key, row);
              }
            });
        if (!upserts.isEmpty()) {
          try (VectorSchemaRoot rows = rows(allocator, schema, upserts)) {
            Dataset merged = LanceTestTables.mergeInsert(dataset, List.of("id"), rows);
            if (dataset != created) {
              dataset.close();
            }
            dataset = merged;
          }
        }
        if (!deletes.isEmpty()) {
          StringJoiner in = new StringJoiner(", ", "id IN (", ")");
          deletes.forEach(key -> in.add(Long.toString(key)));
          dataset.delete(in.toString());
          dataset.checkoutLatest();
        }
      }
      if (dataset != created) {
        dataset.close();
      }
    }
  }

  private static VectorSchemaRoot rows(
      BufferAllocator allocator, Schema schema, Map<Long, List<Object>> rows) {
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
    BigIntVector id = (BigIntVector) root.getVector("id");
    VarCharVector name = (VarCharVector) root.getVector("name");
    BigIntVector version = (BigIntVector) root.getVector("version");
    int i = 0;
    for (List<Object> row : rows.values()) {
      id.setSafe(i, (Long) row.get(0));
      if (row.get(1) == null) {
        name.setNull(i);
      } else {
        name.setSafe(i, ((String) row.get(1)).getBytes(StandardCharsets.UTF_8));
      }
      version.setSafe(i, (Long) row.get(2));
      i++;
    }
    root.setRowCount(i);
    return root;
  }
}
