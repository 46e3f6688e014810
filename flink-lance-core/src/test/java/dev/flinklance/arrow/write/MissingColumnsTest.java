package dev.flinklance.arrow.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.arrow.ArrowSchemaConverter;
import dev.flinklance.arrow.SchemaMismatchException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;

/**
 * A table wider than the stream (another client added columns, or the job's row type is older): its
 * nullable columns and ROW fields the stream lacks are written as NULL, by the generated and the
 * interpreted conversion alike; a NOT NULL one is refused, naming it.
 */
class MissingColumnsTest {
  private static final RowType TABLE_TYPE =
      (RowType)
          DataTypes.ROW(
                  DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
                  DataTypes.FIELD("name", DataTypes.STRING()),
                  DataTypes.FIELD("n", DataTypes.INT()),
                  DataTypes.FIELD("tags", DataTypes.ARRAY(DataTypes.STRING())),
                  DataTypes.FIELD(
                      "point",
                      DataTypes.ROW(
                          DataTypes.FIELD("x", DataTypes.INT().notNull()),
                          DataTypes.FIELD("y", DataTypes.INT()),
                          DataTypes.FIELD("label", DataTypes.STRING()))),
                  DataTypes.FIELD(
                      "extra",
                      DataTypes.ROW(
                          DataTypes.FIELD("a", DataTypes.INT().notNull()),
                          DataTypes.FIELD("b", DataTypes.STRING().notNull()))),
                  DataTypes.FIELD("attrs", DataTypes.MAP(DataTypes.STRING(), DataTypes.INT())),
                  DataTypes.FIELD("vec", DataTypes.ARRAY(DataTypes.FLOAT().notNull())))
              .getLogicalType();

  private static final Schema TABLE =
      ArrowSchemaConverter.toArrowSchema(TABLE_TYPE, Map.of("vec", 3));

  /** The stream in another order, without most columns and without two fields of point. */
  private static final RowType STREAM =
      (RowType)
          DataTypes.ROW(
                  DataTypes.FIELD(
                      "point", DataTypes.ROW(DataTypes.FIELD("x", DataTypes.INT().notNull()))),
                  DataTypes.FIELD("id", DataTypes.BIGINT().notNull()))
              .getLogicalType();

  @Test
  void nullableColumnsAndFieldsTheStreamLacksAreWrittenAsNull() {
    for (BiFunction<FieldWriter<?>[], int[], RowConversion> conversions :
        List.<BiFunction<FieldWriter<?>[], int[], RowConversion>>of(
            ConversionCompiler::create, InterpretedConversion::new)) {
      List<List<String>> written =
          write(STREAM, conversions, GenericRowData.of(GenericRowData.of(7), 1L), row(2L, null));
      List<List<String>> expected =
          write(
              TABLE_TYPE,
              conversions,
              fullRow(1L, GenericRowData.of(7, null, null)),
              fullRow(2L, null));
      assertThat(written).isEqualTo(expected);
      assertThat(written.get(0))
          .containsExactly("1", "null", "null", "null", "{\"x\":7}", "null", "null", "null");
    }
  }

  @Test
  void aNotNullColumnTheStreamLacksIsRefusedByName() {
    RowType noId =
        (RowType) DataTypes.ROW(DataTypes.FIELD("name", DataTypes.STRING())).getLogicalType();
    assertThatThrownBy(() -> write(noId, ConversionCompiler::create))
        .isInstanceOf(SchemaMismatchException.class)
        .hasMessageContaining("Column 'id' of the table is NOT NULL and missing from the stream");
  }

  @Test
  void aNotNullRowFieldTheStreamLacksIsRefusedByItsPath() {
    RowType partialExtra =
        (RowType)
            DataTypes.ROW(
                    DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
                    DataTypes.FIELD(
                        "extra", DataTypes.ROW(DataTypes.FIELD("a", DataTypes.INT().notNull()))))
                .getLogicalType();
    assertThatThrownBy(() -> write(partialExtra, ConversionCompiler::create))
        .isInstanceOf(SchemaMismatchException.class)
        .hasMessageContaining(
            "Column 'extra.b' of the table is NOT NULL and missing from the stream");
  }

  @Test
  void aStreamColumnTheTableLacksIsStillRefused() {
    RowType wider =
        (RowType)
            DataTypes.ROW(
                    DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
                    DataTypes.FIELD("email", DataTypes.STRING()))
                .getLogicalType();
    assertThatThrownBy(() -> write(wider, ConversionCompiler::create))
        .isInstanceOf(SchemaMismatchException.class)
        .hasMessageContaining("Column 'email' of the stream does not exist in the table");
  }

  private static GenericRowData row(long id, RowData point) {
    return GenericRowData.of(point, id);
  }

  private static GenericRowData fullRow(long id, RowData point) {
    return GenericRowData.of(id, null, null, null, point, null, null, null);
  }

  /** Each row's values as the table's vectors hold them, column by column. */
  private static List<List<String>> write(
      RowType stream,
      BiFunction<FieldWriter<?>[], int[], RowConversion> conversions,
      RowData... rows) {
    try (BufferAllocator allocator = new RootAllocator();
        ArrowBatchWriter batch = ArrowBatchWriter.create(stream, TABLE, allocator, conversions)) {
      for (RowData row : rows) {
        batch.write(row);
      }
      VectorSchemaRoot root = batch.seal();
      List<List<String>> values = new ArrayList<>();
      for (int i = 0; i < root.getRowCount(); i++) {
        List<String> row = new ArrayList<>();
        for (FieldVector vector : root.getFieldVectors()) {
          row.add(String.valueOf(vector.getObject(i)));
        }
        values.add(row);
      }
      return values;
    }
  }
}
