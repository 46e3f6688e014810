package dev.flinklance.arrow.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.arrow.ArrowSchemaConverter;
import dev.flinklance.arrow.InvalidValueException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;

/** A row that fails half-way leaves no trace: the sink can skip it and go on with the batch. */
class ArrowBatchWriterTest {
  private static final RowType TYPE =
      (RowType)
          DataTypes.ROW(
                  DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
                  DataTypes.FIELD("name", DataTypes.STRING()),
                  DataTypes.FIELD("tags", DataTypes.ARRAY(DataTypes.STRING())),
                  DataTypes.FIELD(
                      "point",
                      DataTypes.ROW(
                          DataTypes.FIELD("x", DataTypes.INT().notNull()),
                          DataTypes.FIELD("y", DataTypes.INT()))),
                  DataTypes.FIELD("attrs", DataTypes.MAP(DataTypes.STRING(), DataTypes.INT())),
                  DataTypes.FIELD("vec", DataTypes.ARRAY(DataTypes.FLOAT().notNull())))
              .getLogicalType();

  @Test
  void aRowThatFailsInItsLastColumnIsOverwrittenByTheNext() throws Exception {
    try (BufferAllocator allocator = new RootAllocator();
        ArrowBatchWriter batch =
            ArrowBatchWriter.create(
                TYPE, ArrowSchemaConverter.toArrowSchema(TYPE, Map.of("vec", 3)), allocator)) {
      batch.write(row(1, "one", 3));
      assertThatThrownBy(() -> batch.write(row(2, "a much longer name than the others", 4)))
          .isInstanceOf(InvalidValueException.class)
          .hasMessageContaining("vec");
      batch.write(row(3, "three", 3));

      VectorSchemaRoot root = batch.seal();
      assertThat(root.getRowCount()).isEqualTo(2);
      assertThat(values(root, 0)).isEqualTo(expectedValues(1, "one"));
      assertThat(values(root, 1)).isEqualTo(expectedValues(3, "three"));
    }
  }

  @Test
  void aRowThatFailsInANestedNotNullFieldIsOverwrittenByTheNext() throws Exception {
    try (BufferAllocator allocator = new RootAllocator();
        ArrowBatchWriter batch =
            ArrowBatchWriter.create(
                TYPE, ArrowSchemaConverter.toArrowSchema(TYPE, Map.of("vec", 3)), allocator)) {
      batch.write(row(1, "one", 3));
      GenericRowData bad = row(2, "two", 3);
      bad.setField(3, GenericRowData.of(null, 5));
      assertThatThrownBy(() -> batch.write(bad)).isInstanceOf(InvalidValueException.class);
      batch.write(row(3, "three", 3));

      VectorSchemaRoot root = batch.seal();
      assertThat(root.getRowCount()).isEqualTo(2);
      assertThat(values(root, 1)).isEqualTo(expectedValues(3, "three"));
    }
  }

  private static GenericRowData row(long id, String name, int dimension) {
    float[] vector = new float[dimension];
    java.util.Arrays.fill(vector, id);
    return GenericRowData.of(
        id,
        StringData.fromString(name),
        new GenericArrayData(
            new Object[] {StringData.fromString(name + "-a"), StringData.fromString(name + "-b")}),
        GenericRowData.of((int) id, (int) id * 10),
        new GenericMapData(Map.of(StringData.fromString(name), (int) id)),
        new GenericArrayData(vector));
  }

  /** The row's values written alone into a fresh batch. */
  private static List<String> expectedValues(long id, String name) {
    try (BufferAllocator allocator = new RootAllocator();
        ArrowBatchWriter batch =
            ArrowBatchWriter.create(
                TYPE, ArrowSchemaConverter.toArrowSchema(TYPE, Map.of("vec", 3)), allocator)) {
      batch.write(row(id, name, 3));
      return values(batch.seal(), 0);
    }
  }

  private static List<String> values(VectorSchemaRoot root, int index) {
    List<String> values = new ArrayList<>();
    for (FieldVector vector : root.getFieldVectors()) {
      values.add(String.valueOf(vector.getObject(index)));
    }
    return values;
  }
}
