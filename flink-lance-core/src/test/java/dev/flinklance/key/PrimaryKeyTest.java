package dev.flinklance.key;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.WriteParams;
import org.lance.schema.LanceSchema;

/** Primary key validation, key extraction and the key Lance tables declare. */
class PrimaryKeyTest {
  private static final RowType ROWS =
      (RowType)
          DataTypes.ROW(
                  DataTypes.FIELD("id", DataTypes.INT()),
                  DataTypes.FIELD("tenant", DataTypes.STRING()),
                  DataTypes.FIELD("small", DataTypes.SMALLINT()),
                  DataTypes.FIELD("score", DataTypes.DOUBLE()),
                  DataTypes.FIELD("tags", DataTypes.ARRAY(DataTypes.STRING())))
              .getLogicalType();

  @TempDir Path dir;

  @Test
  void columnsThatCannotBeAKeyAreNamedWithTheTable() {
    assertThatThrownBy(() -> PrimaryKey.of(ROWS, List.of("id", "score"), "/t"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Primary key column 'score' of Lance table '/t' has type DOUBLE")
        .hasMessageContaining("TINYINT, SMALLINT, INT, BIGINT, CHAR, VARCHAR/STRING, DATE");
    assertThatThrownBy(() -> PrimaryKey.of(ROWS, List.of("tags"), "/t"))
        .hasMessageContaining("'tags'")
        .hasMessageContaining("ARRAY<STRING>");
    assertThatThrownBy(() -> PrimaryKey.of(ROWS, List.of("nope"), "/t"))
        .hasMessageContaining("Primary key column 'nope' of Lance table '/t' is not a column")
        .hasMessageContaining("[id, tenant, small, score, tags]");
    assertThatThrownBy(() -> PrimaryKey.of(ROWS, List.of("id", "id"), "/t"))
        .hasMessageContaining("names column 'id' twice");
    assertThatThrownBy(() -> PrimaryKey.of(ROWS, List.of(), "/t"))
        .hasMessageContaining("names no column");
  }

  @Test
  void theWidestKeyTheWireFormCarriesIsAcceptedAndAWiderOneRefused() throws Exception {
    List<String> names = new ArrayList<>();
    List<DataTypes.Field> fields = new ArrayList<>();
    for (int i = 0; i <= PrimaryKey.MAX_COLUMNS; i++) {
      names.add("k" + i);
      fields.add(DataTypes.FIELD("k" + i, DataTypes.INT()));
    }
    RowType wide = (RowType) DataTypes.ROW(fields).getLogicalType();
    assertThatThrownBy(() -> PrimaryKey.of(wide, names, "/t"))
        .hasMessageContaining("names 128 columns; at most 127");

    PrimaryKey widest = PrimaryKey.of(wide, names.subList(0, PrimaryKey.MAX_COLUMNS), "/t");
    Object[] values = new Object[names.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = i;
    }
    RowKey key = widest.keyOf(GenericRowData.of(values));
    DataOutputSerializer out = new DataOutputSerializer(1024);
    RowKeyCodec.writeList(List.of(key), out);
    assertThat(RowKeyCodec.readList(new DataInputDeserializer(out.getCopyOfBuffer())))
        .containsExactly(key);
  }

  @Test
  void keysOfEveryIntegerWidthAreEqualAsTheyAreInATable() {
    PrimaryKey key = PrimaryKey.of(ROWS, List.of("small", "tenant"), "/t");
    RowKey fromRow =
        key.keyOf(GenericRowData.of(1, StringData.fromString("a"), (short) 7, 0d, null));
    PrimaryKey wide =
        PrimaryKey.of(
            (RowType)
                DataTypes.ROW(
                        DataTypes.FIELD("small", DataTypes.BIGINT()),
                        DataTypes.FIELD("tenant", DataTypes.VARCHAR(3)))
                    .getLogicalType(),
            List.of("small", "tenant"),
            "/t");
    assertThat(wide.keyOf(GenericRowData.of(7L, StringData.fromString("a")))).isEqualTo(fromRow);
    assertThat(fromRow.toString()).isEqualTo("(7, 'a')");
    assertThat(key.nullColumn(GenericRowData.of(1, null, (short) 7, 0d, null))).isEqualTo("tenant");
  }

  /**
   * The integer matcher reads BIGINT vectors' values directly and narrower ones through their
   * width: both find exactly the rows holding a wanted key, never a null row, zero included.
   */
  @Test
  void integerMatchersFindExactlyTheWantedRowsOfEveryWidth() {
    RowType intKey =
        (RowType) DataTypes.ROW(DataTypes.FIELD("k", DataTypes.INT())).getLogicalType();
    RowType longKey =
        (RowType) DataTypes.ROW(DataTypes.FIELD("k", DataTypes.BIGINT())).getLogicalType();
    Long[] column = {5L, null, 0L, -3L, 7L, null, 5L, Long.valueOf(Integer.MAX_VALUE), 1L};
    List<Integer> expected = List.of(0, 2, 3, 6, 7);
    try (BufferAllocator allocator = new RootAllocator();
        IntVector ints = new IntVector("k", allocator);
        BigIntVector longs = new BigIntVector("k", allocator)) {
      ints.allocateNew(column.length);
      longs.allocateNew(column.length);
      for (int i = 0; i < column.length; i++) {
        if (column[i] == null) {
          ints.setNull(i);
          longs.setNull(i);
        } else {
          ints.set(i, column[i].intValue());
          longs.set(i, column[i]);
        }
      }
      ints.setValueCount(column.length);
      longs.setValueCount(column.length);
      for (var vector : List.of(ints, longs)) {
        PrimaryKey key = PrimaryKey.of(vector == ints ? intKey : longKey, List.of("k"), "/t");
        List<RowKey> wanted =
            List.of(
                key.keyOf(GenericRowData.of(vector == ints ? (Object) 5 : 5L)),
                key.keyOf(GenericRowData.of(vector == ints ? (Object) 0 : 0L)),
                key.keyOf(GenericRowData.of(vector == ints ? (Object) (-3) : -3L)),
                key.keyOf(
                    GenericRowData.of(
                        vector == ints ? (Object) Integer.MAX_VALUE : (long) Integer.MAX_VALUE)),
                key.keyOf(GenericRowData.of(vector == ints ? (Object) 99 : 99L)));
        List<Integer> matched = new ArrayList<>();
        try (VectorSchemaRoot batch = new VectorSchemaRoot(List.of(vector))) {
          key.matcher(wanted).match(batch, matched::add);
        }
        assertThat(matched).as(vector.getMinorType().toString()).isEqualTo(expected);
      }
    }
  }

  /** Routing strings and the wire form tell apart keys whose values print alike. */
  @Test
  void routingKeysAndTheWireFormKeepKeysApart() throws Exception {
    PrimaryKey key = PrimaryKey.of(ROWS, List.of("tenant", "id"), "/t");
    RowKey a = key.keyOf(GenericRowData.of(12, StringData.fromString("1"), null, null, null));
    RowKey b = key.keyOf(GenericRowData.of(2, StringData.fromString("11"), null, null, null));
    RowKey c = key.keyOf(GenericRowData.of(1, StringData.fromString("12"), null, null, null));
    assertThat(List.of(a.routingKey(), b.routingKey(), c.routingKey())).doesNotHaveDuplicates();

    DataOutputSerializer out = new DataOutputSerializer(64);
    RowKeyCodec.writeList(List.of(a, b, c), out);
    assertThat(RowKeyCodec.readList(new DataInputDeserializer(out.getCopyOfBuffer())))
        .containsExactly(a, b, c);
  }

  @Test
  void aCreatedTableDeclaresTheKeyAndAnExistingOneMustMatchIt() throws Exception {
    PrimaryKey key = PrimaryKey.of(ROWS, List.of("tenant", "id"), "/t");
    Schema schema =
        new Schema(
            List.of(
                Field.nullable("id", new ArrowType.Int(32, true)),
                Field.nullable("tenant", ArrowType.Utf8.INSTANCE),
                Field.nullable(
                    "score",
                    new ArrowType.FloatingPoint(
                        org.apache.arrow.vector.types.FloatingPointPrecision.DOUBLE))));
    LanceSchema declared = create("declared", key.declareIn(schema));
    assertThat(PrimaryKey.declaredBy(declared)).contains(List.of("tenant", "id"));
    key.checkTable(declared, "/t");
    assertThatThrownBy(() -> PrimaryKey.of(ROWS, List.of("id"), "/t").checkTable(declared, "/t"))
        .hasMessage(
            "Lance table '/t' has primary key (tenant, id), the sink's rows have primary key (id)");
    assertThatThrownBy(() -> PrimaryKey.requireNoKey(declared, "/t"))
        .hasMessageContaining("Lance table '/t' has primary key (tenant, id): declare it");

    LanceSchema plain = create("plain", schema);
    assertThat(PrimaryKey.declaredBy(plain)).isEmpty();
    key.checkTable(plain, "/t");
    PrimaryKey.requireNoKey(plain, "/t");
    assertThatThrownBy(() -> PrimaryKey.of(ROWS, List.of("small"), "/t").checkTable(plain, "/t"))
        .hasMessage("Primary key column 'small' is not a column of Lance table '/t'");
    assertThatThrownBy(
            () ->
                PrimaryKey.of(
                        (RowType)
                            DataTypes.ROW(DataTypes.FIELD("score", DataTypes.INT()))
                                .getLogicalType(),
                        List.of("score"),
                        "/t")
                    .checkTable(plain, "/t"))
        .hasMessageContaining("Primary key column 'score' of Lance table '/t' holds")
        .hasMessageContaining("cannot be a key");
  }

  @Test
  void theArrowSchemaSaysTheSameKeyAsLancesSchema() {
    PrimaryKey key = PrimaryKey.of(ROWS, List.of("tenant", "id"), "/t");
    Schema schema =
        new Schema(
            List.of(
                Field.nullable("id", new ArrowType.Int(32, true)),
                Field.nullable("tenant", ArrowType.Utf8.INSTANCE)));
    try (BufferAllocator allocator = new RootAllocator();
        Dataset declared =
            Dataset.create(
                allocator,
                dir.resolve("arrow-declared").toString(),
                key.declareIn(schema),
                new WriteParams.Builder().build());
        Dataset plain =
            Dataset.create(
                allocator,
                dir.resolve("arrow-plain").toString(),
                schema,
                new WriteParams.Builder().build())) {
      assertThat(PrimaryKey.declaredBy(declared.getSchema()))
          .contains(List.of("tenant", "id"))
          .isEqualTo(PrimaryKey.declaredBy(declared.getLanceSchema()));
      assertThat(PrimaryKey.declaredBy(plain.getSchema())).isEmpty();
    }
  }

  private LanceSchema create(String name, Schema schema) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset =
            Dataset.create(
                allocator,
                dir.resolve(name).toString(),
                schema,
                new WriteParams.Builder().build())) {
      return dataset.getLanceSchema();
    }
  }
}
