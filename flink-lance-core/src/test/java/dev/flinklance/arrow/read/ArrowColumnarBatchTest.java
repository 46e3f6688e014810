package dev.flinklance.arrow.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeNanoVector;
import org.apache.arrow.vector.TimeSecVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampNanoVector;
import org.apache.arrow.vector.TimeStampSecVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.complex.impl.UnionLargeListWriter;
import org.apache.arrow.vector.complex.impl.UnionMapWriter;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Arrow encodings that other Lance writers produce, read as Flink rows: the type each maps to and
 * the values read through the columnar view, nulls included.
 */
class ArrowColumnarBatchTest {
  private final BufferAllocator allocator = new RootAllocator();
  private final List<FieldVector> vectors = new ArrayList<>();
  private final DictionaryProvider.MapDictionaryProvider dictionaries =
      new DictionaryProvider.MapDictionaryProvider();

  @AfterEach
  void close() {
    vectors.forEach(FieldVector::close);
    dictionaries.close();
    allocator.close();
  }

  private <V extends FieldVector> V vector(Field field) {
    @SuppressWarnings("unchecked")
    V vector = (V) field.createVector(allocator);
    vector.allocateNew();
    vectors.add(vector);
    return vector;
  }

  private RowType rowType() {
    return ArrowTypeConverter.toRowType(
        new VectorSchemaRoot(vectors).getSchema(), ArrowTypeConverter.valuesOf(dictionaries));
  }

  private ArrowColumnarBatch batch(int rows) {
    VectorSchemaRoot root = new VectorSchemaRoot(vectors);
    root.setRowCount(rows);
    return ArrowColumnarBatch.of(
        root, vectors.stream().map(v -> v.getField().getName()).toList(), dictionaries);
  }

  @Test
  void unsignedIntegersWidenToTheNextSignedType() {
    UInt1Vector u8 = vector(Field.nullable("u8", new ArrowType.Int(8, false)));
    UInt2Vector u16 = vector(Field.nullable("u16", new ArrowType.Int(16, false)));
    UInt4Vector u32 = vector(Field.nullable("u32", new ArrowType.Int(32, false)));
    UInt8Vector u64 = vector(Field.nullable("u64", new ArrowType.Int(64, false)));
    u8.setSafe(0, 255);
    u16.setSafe(0, 65_535);
    u32.setSafe(0, -1); // 4294967295
    u64.setSafe(0, -1L); // 18446744073709551615
    u8.setNull(1);
    u16.setNull(1);
    u32.setNull(1);
    u64.setNull(1);

    assertThat(rowType())
        .hasToString("ROW<`u8` SMALLINT, `u16` INT, `u32` BIGINT, `u64` DECIMAL(20, 0)>");
    RowData row = batch(2).row(0);
    assertThat(row.getShort(0)).isEqualTo((short) 255);
    assertThat(row.getInt(1)).isEqualTo(65_535);
    assertThat(row.getLong(2)).isEqualTo(4_294_967_295L);
    assertThat(row.getDecimal(3, 20, 0).toBigDecimal())
        .isEqualTo(new BigDecimal("18446744073709551615"));
    RowData nulls = batch(2).row(1);
    for (int i = 0; i < 4; i++) {
      assertThat(nulls.isNullAt(i)).isTrue();
    }
  }

  @Test
  void largeFixedAndDictionaryEncodedStringsAndBinaries() {
    LargeVarCharVector large = vector(Field.nullable("large", ArrowType.LargeUtf8.INSTANCE));
    LargeVarBinaryVector bytes = vector(Field.nullable("bytes", ArrowType.LargeBinary.INSTANCE));
    FixedSizeBinaryVector fixed = vector(Field.nullable("fixed", new ArrowType.FixedSizeBinary(2)));
    VarCharVector values = new VarCharVector("values", allocator);
    values.allocateNew();
    values.setSafe(0, "red".getBytes(StandardCharsets.UTF_8));
    values.setSafe(1, "grün".getBytes(StandardCharsets.UTF_8));
    values.setValueCount(2);
    DictionaryEncoding encoding = new DictionaryEncoding(7, false, new ArrowType.Int(32, true));
    dictionaries.put(new Dictionary(values, encoding));
    IntVector colour =
        vector(
            new Field("colour", new FieldType(true, new ArrowType.Int(32, true), encoding), null));
    large.setSafe(0, "ä".getBytes(StandardCharsets.UTF_8));
    bytes.setSafe(0, new byte[] {1, 2, 3});
    fixed.setSafe(0, new byte[] {9, 8});
    colour.setSafe(0, 1);
    colour.setSafe(1, 0);
    large.setNull(1);
    bytes.setNull(1);
    fixed.setNull(1);
    colour.setNull(2);

    assertThat(rowType())
        .hasToString("ROW<`large` STRING, `bytes` BYTES, `fixed` BINARY(2), `colour` STRING>");
    ArrowColumnarBatch batch = batch(3);
    RowData row = batch.row(0);
    assertThat(row.getString(0)).hasToString("ä");
    assertThat(row.getBinary(1)).containsExactly(1, 2, 3);
    assertThat(row.getBinary(2)).containsExactly(9, 8);
    assertThat(row.getString(3)).hasToString("grün");
    assertThat(batch.row(1).getString(3)).hasToString("red");
    assertThat(batch.row(1).isNullAt(0)).isTrue();
    assertThat(batch.row(2).isNullAt(3)).isTrue();
  }

  @Test
  void timeUnitsAndZonesAndOtherEncodings() {
    TimeStampSecVector seconds =
        vector(Field.nullable("ts_s", new ArrowType.Timestamp(TimeUnit.SECOND, null)));
    TimeStampNanoVector nanos =
        vector(Field.nullable("ts_ns", new ArrowType.Timestamp(TimeUnit.NANOSECOND, null)));
    TimeStampMicroTZVector zoned =
        vector(
            Field.nullable(
                "ts_us_ny", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "America/New_York")));
    TimeSecVector timeSeconds =
        vector(Field.nullable("t_s", new ArrowType.Time(TimeUnit.SECOND, 32)));
    TimeMicroVector timeMicros =
        vector(Field.nullable("t_us", new ArrowType.Time(TimeUnit.MICROSECOND, 64)));
    TimeNanoVector timeNanos =
        vector(Field.nullable("t_ns", new ArrowType.Time(TimeUnit.NANOSECOND, 64)));
    DateMilliVector date64 =
        vector(
            Field.nullable(
                "d64", new ArrowType.Date(org.apache.arrow.vector.types.DateUnit.MILLISECOND)));
    Float2Vector half =
        vector(Field.nullable("f16", new ArrowType.FloatingPoint(FloatingPointPrecision.HALF)));
    Decimal256Vector wide = vector(Field.nullable("dec256", new ArrowType.Decimal(30, 4, 256)));
    seconds.setSafe(0, -1L); // one second before the epoch
    nanos.setSafe(0, -1L); // one nanosecond before the epoch
    zoned.setSafe(0, 1_700_000_000_123_456L);
    timeSeconds.setSafe(0, 3_600);
    timeMicros.setSafe(0, 3_600_001_999L);
    timeNanos.setSafe(0, 3_600_001_999_999L);
    date64.setSafe(0, -86_400_000L);
    half.setSafeWithPossibleTruncate(0, 1.5f);
    wide.setSafe(0, new BigDecimal("12345678901234567890.1234"));

    assertThat(rowType())
        .hasToString(
            "ROW<`ts_s` TIMESTAMP(0), `ts_ns` TIMESTAMP(9), `ts_us_ny` TIMESTAMP_LTZ(6),"
                + " `t_s` TIME(0), `t_us` TIME(6), `t_ns` TIME(9), `d64` DATE, `f16` FLOAT,"
                + " `dec256` DECIMAL(30, 4)>");
    RowData row = batch(1).row(0);
    assertThat(row.getTimestamp(0, 0).toLocalDateTime())
        .isEqualTo(LocalDateTime.of(1969, 12, 31, 23, 59, 59));
    assertThat(row.getTimestamp(1, 9).toLocalDateTime())
        .isEqualTo(LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_999_999));
    assertThat(row.getTimestamp(2, 6).toInstant()).hasToString("2023-11-14T22:13:20.123456Z");
    assertThat(row.getInt(3)).isEqualTo(3_600_000);
    assertThat(row.getInt(4)).as("Flink holds TIME in milliseconds").isEqualTo(3_600_001);
    assertThat(row.getInt(5)).isEqualTo(3_600_001);
    assertThat(row.getInt(6)).isEqualTo(-1);
    assertThat(row.getFloat(7)).isEqualTo(1.5f);
    assertThat(row.getDecimal(8, 30, 4).toBigDecimal())
        .isEqualTo(new BigDecimal("12345678901234567890.1234"));
  }

  @Test
  void nestedValues() {
    Field item = new Field("item", FieldType.notNullable(new ArrowType.Int(64, true)), null);
    FixedSizeListVector vector =
        vector(new Field("vec", FieldType.nullable(new ArrowType.FixedSizeList(2)), List.of(item)));
    LargeListVector large =
        vector(
            new Field(
                "large_list", FieldType.nullable(ArrowType.LargeList.INSTANCE), List.of(item)));
    MapVector map =
        vector(
            new Field(
                "m",
                FieldType.nullable(new ArrowType.Map(false)),
                List.of(
                    new Field(
                        "entries",
                        FieldType.notNullable(ArrowType.Struct.INSTANCE),
                        List.of(
                            new Field("key", FieldType.notNullable(ArrowType.Utf8.INSTANCE), null),
                            new Field(
                                "value",
                                FieldType.nullable(new ArrowType.Int(64, true)),
                                null))))));
    StructVector struct =
        vector(
            new Field(
                "s",
                FieldType.nullable(ArrowType.Struct.INSTANCE),
                List.of(new Field("a", FieldType.nullable(ArrowType.Utf8.INSTANCE), null))));
    BigIntVector elements = (BigIntVector) vector.getDataVector();
    vector.setNotNull(0);
    elements.setSafe(0, 1);
    elements.setSafe(1, 2);
    vector.setNull(1);
    UnionLargeListWriter listWriter = large.getWriter();
    listWriter.setPosition(0);
    listWriter.startList();
    listWriter.bigInt().writeBigInt(5);
    listWriter.bigInt().writeBigInt(6);
    listWriter.bigInt().writeBigInt(7);
    listWriter.endList();
    large.setValueCount(2);
    UnionMapWriter mapWriter = map.getWriter();
    mapWriter.setPosition(0);
    mapWriter.startMap();
    mapWriter.startEntry();
    mapWriter.key().varChar().writeVarChar("k");
    mapWriter.value().bigInt().writeBigInt(42);
    mapWriter.endEntry();
    mapWriter.endMap();
    map.setValueCount(2);
    ((VarCharVector) struct.getChild("a")).setSafe(0, "x".getBytes(StandardCharsets.UTF_8));
    struct.setIndexDefined(0);
    struct.setNull(1);

    assertThat(rowType())
        .hasToString(
            "ROW<`vec` ARRAY<BIGINT NOT NULL>, `large_list` ARRAY<BIGINT NOT NULL>,"
                + " `m` MAP<STRING NOT NULL, BIGINT>, `s` ROW<`a` STRING>>");
    ArrowColumnarBatch batch = batch(2);
    RowData row = batch.row(0);
    assertThat(row.getArray(0).toLongArray()).containsExactly(1, 2);
    assertThat(row.getArray(1).toLongArray()).containsExactly(5, 6, 7);
    MapData entries = row.getMap(2);
    ArrayData keys = entries.keyArray();
    assertThat(keys.getString(0)).hasToString("k");
    assertThat(entries.valueArray().getLong(0)).isEqualTo(42);
    assertThat(row.getRow(3, 1).getString(0)).hasToString("x");
    RowData second = batch.row(1);
    assertThat(second.isNullAt(0)).isTrue();
    assertThat(second.isNullAt(3)).isTrue();
  }

  @Test
  void typeWithoutFlinkEquivalentIsNamed() {
    vector(Field.nullable("took", new ArrowType.Duration(TimeUnit.SECOND)));
    assertThatThrownBy(this::rowType)
        .isInstanceOf(UnsupportedArrowTypeException.class)
        .hasMessageStartingWith("Column 'took' has Arrow type Duration(SECOND)");
    assertThatThrownBy(
            () ->
                ArrowTypeConverter.toRowType(
                    new org.apache.arrow.vector.types.pojo.Schema(
                        List.of(
                            new Field(
                                "s",
                                FieldType.nullable(ArrowType.Struct.INSTANCE),
                                List.of(Field.nullable("n", ArrowType.Null.INSTANCE))))),
                    Map.<Long, Field>of()::get))
        .hasMessageStartingWith("Column 's.n' has Arrow type Null");
  }
}
