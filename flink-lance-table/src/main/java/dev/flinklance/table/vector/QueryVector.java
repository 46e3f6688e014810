package dev.flinklance.table.vector;

import dev.flinklance.errors.PermanentDatasetException;
import dev.flinklance.index.VectorColumn;
import java.io.Serializable;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.inference.CallContext;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;

/**
 * Reads query vectors as the float arrays Lance searches with, checked against the column. Flink
 * 2.2 passes the query argument in its own type, without casting it to the column's: {@code
 * ARRAY[1, 2, 3]} arrives as INT elements, a query column of {@code ARRAY<FLOAT>} as FLOAT ones.
 * The element type comes from the call ({@link #of(CallContext)}), so each is read as what it is.
 */
final class QueryVector implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The query argument's position in Flink's call: (top_k, query). */
  private static final int QUERY_ARGUMENT = 1;

  private final LogicalType elementType;

  private QueryVector(LogicalType elementType) {
    this.elementType = elementType;
  }

  /** Queries of the element type Flink's call passes. */
  static QueryVector of(CallContext call) {
    DataType query = call.getArgumentDataTypes().get(QUERY_ARGUMENT);
    return new QueryVector(((ArrayType) query.getLogicalType()).getElementType());
  }

  /** Queries of FLOAT elements (before Flink has told the real type). */
  static QueryVector floats() {
    return new QueryVector(new org.apache.flink.table.types.logical.FloatType());
  }

  /**
   * @throws PermanentDatasetException if the vector does not fit the column: replaying the record
   *     after a restart cannot fix it
   */
  float[] toFloats(ArrayData query, VectorColumn column, String uri) {
    if (query.size() != column.dimension()) {
      throw new PermanentDatasetException(
          uri,
          String.format(
              "VECTOR_SEARCH on column '%s': the query vector has %d elements, the column's"
                  + " vectors have %d",
              column.name(), query.size(), column.dimension()),
          null);
    }
    float[] key = new float[query.size()];
    for (int i = 0; i < key.length; i++) {
      if (query.isNullAt(i)) {
        throw new PermanentDatasetException(
            uri,
            String.format(
                "VECTOR_SEARCH on column '%s': the query vector has a NULL element at index %d",
                column.name(), i),
            null);
      }
      key[i] = element(query, i);
    }
    return key;
  }

  private float element(ArrayData query, int i) {
    LogicalTypeRoot root = elementType.getTypeRoot();
    return switch (root) {
      case FLOAT -> query.getFloat(i);
      case DOUBLE -> (float) query.getDouble(i);
      case TINYINT -> query.getByte(i);
      case SMALLINT -> query.getShort(i);
      case INTEGER -> query.getInt(i);
      case BIGINT -> query.getLong(i);
      case DECIMAL -> {
        DecimalType decimal = (DecimalType) elementType;
        DecimalData value = query.getDecimal(i, decimal.getPrecision(), decimal.getScale());
        yield value.toBigDecimal().floatValue();
      }
      default ->
          throw new IllegalStateException(
              "VECTOR_SEARCH query elements of type " + elementType + " are not numbers");
    };
  }
}
