package dev.flinklance.index;

import dev.flinklance.arrow.read.LanceReadSchema;
import java.io.Serializable;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.flink.annotation.Internal;

/**
 * A column Lance can search: a fixed-size list of floats (Arrow {@code FixedSizeList<float16 |
 * float32 | float64>}), which is what {@code 'vector-columns'} creates. Lance does not check a
 * search against its column (a query of the wrong dimension silently returns every row), so this
 * does.
 */
@Internal
public record VectorColumn(String name, int dimension) implements Serializable {

  /**
   * @throws IllegalArgumentException naming the column if it is missing or not a vector of floats
   */
  public static VectorColumn of(LanceReadSchema schema, String column) {
    Field field =
        schema
            .field(column)
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        String.format(
                            "Column '%s' does not exist; columns are %s",
                            column, schema.columnNames())));
    ArrowType type = field.getType();
    if (type instanceof ArrowType.FixedSizeList list && isFloat(field.getChildren().get(0))) {
      return new VectorColumn(column, list.getListSize());
    }
    if (type instanceof ArrowType.List || type instanceof ArrowType.LargeList) {
      throw new IllegalArgumentException(
          String.format(
              "Column '%s' is a variable-length list (%s), not a vector column: Lance searches"
                  + " fixed-size lists of floats, which a table gets when it is created with"
                  + " 'vector-columns' = '%s:<dimension>'",
              column, field, column));
    }
    throw new IllegalArgumentException(
        String.format(
            "Column '%s' has type %s, not a vector of floats (a FixedSizeList of float16, float32"
                + " or float64)",
            column, field));
  }

  private static boolean isFloat(Field element) {
    return element.getType() instanceof ArrowType.FloatingPoint;
  }
}
