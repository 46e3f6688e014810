package dev.flinklance.arrow;

import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;

/** Checks the columns a user declared as fixed-dimension vectors. */
@Internal
public final class VectorColumns {

  private VectorColumns() {}

  public static void validate(RowType rowType, Map<String, Integer> vectorColumns) {
    vectorColumns.forEach(
        (name, dimension) -> {
          int index = rowType.getFieldIndex(name);
          if (index < 0) {
            throw new IllegalArgumentException(
                String.format(
                    "Vector column '%s' does not exist; columns are %s",
                    name, rowType.getFieldNames()));
          }
          LogicalType type = rowType.getTypeAt(index);
          if (!(type instanceof ArrayType) || !isNumeric(((ArrayType) type).getElementType())) {
            throw new IllegalArgumentException(
                String.format(
                    "Vector column '%s' must be an ARRAY of a numeric type, but is %s",
                    name, type.asSummaryString()));
          }
          if (dimension == null || dimension <= 0) {
            throw new IllegalArgumentException(
                String.format(
                    "Vector column '%s' needs a positive dimension, got %s", name, dimension));
          }
        });
  }

  private static boolean isNumeric(LogicalType type) {
    LogicalTypeRoot root = type.getTypeRoot();
    return root == LogicalTypeRoot.TINYINT
        || root == LogicalTypeRoot.SMALLINT
        || root == LogicalTypeRoot.INTEGER
        || root == LogicalTypeRoot.BIGINT
        || root == LogicalTypeRoot.FLOAT
        || root == LogicalTypeRoot.DOUBLE;
  }
}
