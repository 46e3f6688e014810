package dev.flinklance.testing;

import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.List;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.RowType;

/**
 * The benchmark's rows, one deterministic function of the id, produced either as Flink RowData (the
 * sink's input) or straight into Arrow vectors (the raw-Lance baseline): id, category, score and a
 * 768-dimension float embedding.
 */
public final class BenchRows {
  public static final int DIMENSION = 768;

  public static final RowType ROW_TYPE =
      (RowType)
          DataTypes.ROW(
                  DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
                  DataTypes.FIELD("category", DataTypes.STRING()),
                  DataTypes.FIELD("score", DataTypes.DOUBLE()),
                  DataTypes.FIELD("embedding", DataTypes.ARRAY(DataTypes.FLOAT().notNull())))
              .notNull()
              .getLogicalType();

  /** The Arrow schema the sink creates for {@link #ROW_TYPE} with embedding as a vector. */
  public static final Schema ARROW_SCHEMA =
      new Schema(
          List.of(
              Field.notNullable("id", new ArrowType.Int(64, true)),
              Field.nullable("category", ArrowType.Utf8.INSTANCE),
              Field.nullable("score", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
              new Field(
                  "embedding",
                  FieldType.nullable(new ArrowType.FixedSizeList(DIMENSION)),
                  List.of(
                      Field.notNullable(
                          "item", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE))))));

  private BenchRows() {}

  public static String category(long id) {
    return "category-" + (id % 97);
  }

  public static double score(long id) {
    return (id * 0.618033988749) % 1.0;
  }

  public static float embedding(long id, int k) {
    return ((id * 31 + k * 17) % 1_000) / 1_000f;
  }

  public static RowData row(long id) {
    float[] vector = new float[DIMENSION];
    for (int k = 0; k < DIMENSION; k++) {
      vector[k] = embedding(id, k);
    }
    return GenericRowData.of(
        id, StringData.fromString(category(id)), score(id), new GenericArrayData(vector));
  }

  /**
   * Fills {@code root} with rows {@code from} (inclusive) to {@code to} (exclusive) the fastest way
   * we know with Arrow directly: vectors sized once for the batch, unchecked setters, each
   * embedding copied in bulk, validity set a byte at a time.
   */
  public static void fill(VectorSchemaRoot root, long from, long to) {
    int rows = (int) (to - from);
    for (FieldVector vector : root.getFieldVectors()) {
      vector.setInitialCapacity(rows);
    }
    root.allocateNew();
    BigIntVector ids = (BigIntVector) root.getVector("id");
    VarCharVector categories = (VarCharVector) root.getVector("category");
    Float8Vector scores = (Float8Vector) root.getVector("score");
    FixedSizeListVector embeddings = (FixedSizeListVector) root.getVector("embedding");
    Float4Vector items = (Float4Vector) embeddings.getDataVector();
    FloatBuffer itemValues =
        items
            .getDataBuffer()
            .nioBuffer(0, rows * DIMENSION * Float.BYTES)
            .order(ByteOrder.LITTLE_ENDIAN)
            .asFloatBuffer();
    float[] vector = new float[DIMENSION];
    int index = 0;
    for (long id = from; id < to; id++, index++) {
      ids.set(index, id);
      categories.setSafe(index, category(id).getBytes());
      scores.set(index, score(id));
      embeddings.setNotNull(index);
      for (int k = 0; k < DIMENSION; k++) {
        vector[k] = embedding(id, k);
      }
      itemValues.put(vector);
    }
    items.getValidityBuffer().setOne(0, (rows * DIMENSION + 7) / 8);
    root.setRowCount(index);
  }
}
