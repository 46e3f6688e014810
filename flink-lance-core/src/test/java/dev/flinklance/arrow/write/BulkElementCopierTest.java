package dev.flinklance.arrow.write;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.binary.BinaryArrayData;
import org.apache.flink.table.types.logical.LogicalType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Bulk copies land every value and validity bit exactly, at any start offset. */
class BulkElementCopierTest {

  @ParameterizedTest(name = "start {0}")
  @ValueSource(ints = {0, 3, 8, 13})
  void copiesEveryPrimitiveTypeAtAnyOffset(int start) {
    try (BufferAllocator allocator = new RootAllocator()) {
      assertCopied(
          new Float4Vector("f", allocator),
          DataTypes.FLOAT().notNull().getLogicalType(),
          new GenericArrayData(new float[] {1.5f, -2f, 3f, 4f, 5f, 6f, 7f, 8f, 9f, 10f, 11f}),
          start);
      assertCopied(
          new Float8Vector("d", allocator),
          DataTypes.DOUBLE().getLogicalType(),
          new GenericArrayData(new double[] {0.25, -1, 1e300}),
          start);
      assertCopied(
          new TinyIntVector("b", allocator),
          DataTypes.TINYINT().getLogicalType(),
          new GenericArrayData(new byte[] {-128, 0, 127, 5, 6, 7, 8, 9, 10}),
          start);
      assertCopied(
          new IntVector("i", allocator),
          DataTypes.INT().getLogicalType(),
          new GenericArrayData(new int[] {Integer.MIN_VALUE, 0, Integer.MAX_VALUE}),
          start);
      assertCopied(
          new BigIntVector("l", allocator),
          DataTypes.BIGINT().getLogicalType(),
          new GenericArrayData(
              new long[] {Long.MIN_VALUE, 42, Long.MAX_VALUE, 7, 7, 7, 7, 7, 7, 7}),
          start);
    }
  }

  @Test
  void declinesArraysWithNullsAndUnsupportedTypes() {
    try (BufferAllocator allocator = new RootAllocator();
        Float4Vector vector = new Float4Vector("f", allocator)) {
      vector.allocateNew(4);
      BulkElementCopier copier = BulkElementCopier.of(DataTypes.FLOAT().getLogicalType(), vector);
      assertThat(copier.copy(new GenericArrayData(new Float[] {1f, null}), 0)).isFalse();
      assertThat(vector.isNull(0)).as("nothing written").isTrue();
      assertThat(BulkElementCopier.of(DataTypes.SMALLINT().getLogicalType(), vector)).isNull();
    }
  }

  /** The array as Java code builds it and as a SQL query hands it on (Flink's binary format). */
  private static void assertCopied(
      FieldVector vector, LogicalType elementType, GenericArrayData array, int start) {
    FieldVector again = vector.getField().createVector(vector.getAllocator());
    assertCopied(vector, elementType, (ArrayData) array, start);
    assertCopied(again, elementType, binary(array, elementType), start);
  }

  private static ArrayData binary(GenericArrayData array, LogicalType elementType) {
    return switch (elementType.getTypeRoot()) {
      case FLOAT -> BinaryArrayData.fromPrimitiveArray(array.toFloatArray());
      case DOUBLE -> BinaryArrayData.fromPrimitiveArray(array.toDoubleArray());
      case TINYINT -> BinaryArrayData.fromPrimitiveArray(array.toByteArray());
      case INTEGER -> BinaryArrayData.fromPrimitiveArray(array.toIntArray());
      default -> BinaryArrayData.fromPrimitiveArray(array.toLongArray());
    };
  }

  /**
   * Many arrays one after the other, so that the vector grows under the copier several times: every
   * value lands in the grown buffer.
   */
  @Test
  void copiesAcrossGrowthOfTheVector() {
    try (BufferAllocator allocator = new RootAllocator();
        Float4Vector vector = new Float4Vector("f", allocator)) {
      vector.allocateNew(16);
      BulkElementCopier copier =
          BulkElementCopier.of(DataTypes.FLOAT().notNull().getLogicalType(), vector);
      int arrays = 500;
      int dimension = 24;
      for (int a = 0; a < arrays; a++) {
        float[] values = new float[dimension];
        for (int i = 0; i < dimension; i++) {
          values[i] = a * 1000 + i;
        }
        ArrayData array =
            a % 2 == 0 ? new GenericArrayData(values) : BinaryArrayData.fromPrimitiveArray(values);
        assertThat(copier.copy(array, a * dimension)).isTrue();
      }
      vector.setValueCount(arrays * dimension);
      for (int a = 0; a < arrays; a++) {
        for (int i = 0; i < dimension; i++) {
          assertThat(vector.get(a * dimension + i)).isEqualTo(a * 1000f + i);
        }
      }
    }
  }

  private static void assertCopied(
      FieldVector vector, LogicalType elementType, ArrayData array, int start) {
    try (vector) {
      vector.allocateNew();
      BulkElementCopier copier = BulkElementCopier.of(elementType, vector);
      assertThat(copier.copy(array, start)).isTrue();
      vector.setValueCount(start + array.size());

      List<Object> expected = new ArrayList<>();
      List<Object> actual = new ArrayList<>();
      for (int i = 0; i < start; i++) {
        assertThat(vector.isNull(i)).as("slot %d before the copy stays null", i).isTrue();
      }
      for (int i = 0; i < array.size(); i++) {
        expected.add(ArrayElement.of(array, elementType, i));
        actual.add(vector.getObject(start + i));
      }
      assertThat(actual).isEqualTo(expected);
    }
  }

  /** Reads element {@code i} of a primitive array as the boxed value Arrow would return. */
  private static final class ArrayElement {
    static Object of(ArrayData array, LogicalType type, int i) {
      return switch (type.getTypeRoot()) {
        case FLOAT -> array.getFloat(i);
        case DOUBLE -> array.getDouble(i);
        case TINYINT -> array.getByte(i);
        case INTEGER -> array.getInt(i);
        default -> array.getLong(i);
      };
    }
  }
}
