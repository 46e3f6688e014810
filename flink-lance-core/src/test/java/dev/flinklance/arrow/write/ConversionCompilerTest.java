package dev.flinklance.arrow.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.arrow.ArrowSchemaConverter;
import dev.flinklance.arrow.InvalidValueException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;

/**
 * The conversion generated per schema writes the same bytes as the column writers it stands in for:
 * the same values, nulls, failed rows and batch boundaries give identical Arrow buffers.
 */
class ConversionCompilerTest {
  /** Every column kind the generated code inlines, and some it hands to their writers. */
  private static final RowType TYPE =
      (RowType)
          DataTypes.ROW(
                  DataTypes.FIELD("s", DataTypes.STRING()),
                  DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
                  DataTypes.FIELD("b", DataTypes.TINYINT()),
                  DataTypes.FIELD("sh", DataTypes.SMALLINT()),
                  DataTypes.FIELD("i", DataTypes.INT()),
                  DataTypes.FIELD("f", DataTypes.FLOAT()),
                  DataTypes.FIELD("d", DataTypes.DOUBLE()),
                  DataTypes.FIELD("ts", DataTypes.TIMESTAMP(3)),
                  DataTypes.FIELD("flag", DataTypes.BOOLEAN()),
                  DataTypes.FIELD("amount", DataTypes.DECIMAL(10, 2)),
                  DataTypes.FIELD("vec", DataTypes.ARRAY(DataTypes.FLOAT().notNull())),
                  DataTypes.FIELD(
                      "point", DataTypes.ROW(DataTypes.FIELD("x", DataTypes.INT().notNull()))))
              .getLogicalType();

  /** The table orders its columns differently from the stream. */
  private static final Schema TABLE =
      reversed(ArrowSchemaConverter.toArrowSchema(TYPE, Map.of("vec", 2)));

  @Test
  void generatedAndInterpretedWriteTheSameBuffers() throws Exception {
    Random random = new Random(19);
    List<List<RowData>> batches = new ArrayList<>();
    for (int size : new int[] {1, 1023, 1024, 1025, 5000, 0, 3}) {
      List<RowData> rows = new ArrayList<>();
      for (int i = 0; i < size; i++) {
        rows.add(row(random));
      }
      batches.add(rows);
    }
    try (BufferAllocator allocator = new RootAllocator();
        ArrowBatchWriter generated =
            ArrowBatchWriter.create(TYPE, TABLE, allocator, ConversionCompiler::create);
        ArrowBatchWriter interpreted =
            ArrowBatchWriter.create(TYPE, TABLE, allocator, InterpretedConversion::new)) {
      int allFailures = 0;
      for (List<RowData> rows : batches) {
        int failures = 0;
        for (RowData row : rows) {
          failures += writeOrFail(generated, row) ? 0 : 1;
          writeOrFail(interpreted, row);
        }
        VectorSchemaRoot expected = interpreted.seal();
        VectorSchemaRoot actual = generated.seal();
        assertThat(actual.getRowCount())
            .isEqualTo(expected.getRowCount())
            .isEqualTo(rows.size() - failures);
        assertThat(actual.contentToTSVString()).isEqualTo(expected.contentToTSVString());
        for (FieldVector vector : expected.getFieldVectors()) {
          assertSameBytes(vector, actual.getVector(vector.getName()), expected.getRowCount());
        }
        generated.reset(Long.MAX_VALUE, true);
        interpreted.reset(Long.MAX_VALUE, true);
        allFailures += failures;
      }
      assertThat(allFailures)
          .as("rows that failed half-way were part of the comparison")
          .isPositive();
    }
  }

  @Test
  void theGeneratedCodeIsWhatABatchWriterUses() {
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = VectorSchemaRoot.create(TABLE, allocator)) {
      FieldWriter<?>[] writers = writers(TYPE, root);
      int[] positions = FieldWriters.matchByName("", TYPE, TABLE.getFields());
      RowConversion first = ConversionCompiler.create(writers, positions);
      RowConversion second = ConversionCompiler.create(writers, positions);
      assertThat(first).isNotInstanceOf(InterpretedConversion.class);
      assertThat(second.getClass()).as("compiled once per source").isSameAs(first.getClass());
    }
  }

  /** Over {@link ConversionCompiler#COLUMNS_PER_METHOD} columns, the code spreads over methods. */
  @Test
  void aWideTableIsWrittenByMethodsSmallEnoughToCompile() throws Exception {
    int columns = ConversionCompiler.COLUMNS_PER_METHOD * 3 + 5;
    DataTypes.Field[] fields = new DataTypes.Field[columns];
    for (int i = 0; i < columns; i++) {
      fields[i] = DataTypes.FIELD("c" + i, DataTypes.BIGINT());
    }
    RowType wide = (RowType) DataTypes.ROW(fields).getLogicalType();
    Schema schema = ArrowSchemaConverter.toArrowSchema(wide, Map.of());
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        ArrowBatchWriter batch = ArrowBatchWriter.create(wide, schema, allocator)) {
      String source =
          ConversionCompiler.source(
              writers(wide, root), FieldWriters.matchByName("", wide, schema.getFields()));
      assertThat(source).contains("columns3(row, index)").doesNotContain("columns4(");
      GenericRowData row = new GenericRowData(columns);
      for (int i = 0; i < columns; i++) {
        row.setField(i, i % 7 == 0 ? null : (long) i * 1_000_000_007L);
      }
      batch.write(row);
      VectorSchemaRoot written = batch.seal();
      for (int i = 0; i < columns; i++) {
        assertThat(written.getVector(i).getObject(0)).isEqualTo(row.getField(i));
      }
    }
  }

  @Test
  void aNullIntoANotNullColumnNamesTheColumn() {
    try (BufferAllocator allocator = new RootAllocator();
        ArrowBatchWriter batch = ArrowBatchWriter.create(TYPE, TABLE, allocator)) {
      GenericRowData row = (GenericRowData) row(new Random(1));
      row.setField(1, null);
      assertThatThrownBy(() -> batch.write(row))
          .isInstanceOf(InvalidValueException.class)
          .hasMessageContaining("'id'")
          .hasMessageContaining("NOT NULL");
      assertThat(batch.rowCount()).isZero();
    }
  }

  /** Random values, a fifth of them null; one row in fifty fails (a null id, a short vector). */
  private static RowData row(Random random) {
    Object[] values = {
      StringData.fromString("s" + "\u00e9".repeat(random.nextInt(12))),
      random.nextInt(50) == 0 ? null : random.nextLong(),
      (byte) random.nextInt(),
      (short) random.nextInt(),
      random.nextInt(),
      random.nextFloat(),
      random.nextDouble(),
      TimestampData.fromEpochMillis(random.nextLong() >> 20),
      random.nextBoolean(),
      DecimalData.fromBigDecimal(BigDecimal.valueOf(random.nextInt(), 2), 10, 2),
      new GenericArrayData(new float[random.nextInt(50) == 0 ? 1 : 2]),
      GenericRowData.of(random.nextInt())
    };
    for (int i = 0; i < values.length; i++) {
      if (i != 1 && random.nextInt(5) == 0) {
        values[i] = null;
      }
    }
    return GenericRowData.of(values);
  }

  private static boolean writeOrFail(ArrowBatchWriter batch, RowData row) {
    try {
      batch.write(row);
      return true;
    } catch (InvalidValueException e) {
      return false;
    }
  }

  /** Validity, offsets and values of the first {@code rows} slots, byte for byte. */
  private static void assertSameBytes(FieldVector expected, FieldVector actual, int rows) {
    assertThat(bytes(actual.getValidityBuffer(), (rows + 7) / 8))
        .as("validity of %s", expected.getName())
        .isEqualTo(bytes(expected.getValidityBuffer(), (rows + 7) / 8));
    if (expected instanceof BaseFixedWidthVector fixed && fixed.getTypeWidth() > 0) {
      long length = (long) rows * fixed.getTypeWidth();
      assertThat(bytes(actual.getDataBuffer(), length))
          .as("values of %s", expected.getName())
          .isEqualTo(bytes(expected.getDataBuffer(), length));
    }
    if (expected instanceof BaseVariableWidthVector variable) {
      long offsets = (rows + 1L) * BaseVariableWidthVector.OFFSET_WIDTH;
      assertThat(bytes(actual.getOffsetBuffer(), offsets))
          .as("offsets of %s", expected.getName())
          .isEqualTo(bytes(expected.getOffsetBuffer(), offsets));
      long length = variable.getStartOffset(rows);
      assertThat(bytes(actual.getDataBuffer(), length))
          .as("bytes of %s", expected.getName())
          .isEqualTo(bytes(expected.getDataBuffer(), length));
    }
  }

  private static byte[] bytes(ArrowBuf buffer, long length) {
    byte[] bytes = new byte[(int) length];
    buffer.getBytes(0, bytes);
    return bytes;
  }

  /** The column writers of {@code root}, in its order, for fields of {@code stream}. */
  private static FieldWriter<?>[] writers(RowType stream, VectorSchemaRoot root) {
    List<FieldVector> vectors = root.getFieldVectors();
    FieldWriter<?>[] writers = new FieldWriter<?>[vectors.size()];
    for (int i = 0; i < writers.length; i++) {
      String name = vectors.get(i).getName();
      writers[i] =
          FieldWriters.create(name, stream.getTypeAt(stream.getFieldIndex(name)), vectors.get(i));
    }
    return writers;
  }

  private static Schema reversed(Schema schema) {
    List<org.apache.arrow.vector.types.pojo.Field> fields = new ArrayList<>(schema.getFields());
    java.util.Collections.reverse(fields);
    return new Schema(fields);
  }
}
