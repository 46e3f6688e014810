package dev.flinklance.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.arrow.read.LanceReadSchema;
import dev.flinklance.testing.TestTables;
import java.nio.file.Path;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;

/** Which columns of a real table Lance can search, and what the others are told. */
class VectorColumnTest {
  private static final RowType ROW_TYPE =
      (RowType)
          DataTypes.ROW(
                  DataTypes.FIELD("id", DataTypes.BIGINT()),
                  DataTypes.FIELD("v", DataTypes.ARRAY(DataTypes.FLOAT().notNull())),
                  DataTypes.FIELD("d", DataTypes.ARRAY(DataTypes.DOUBLE().notNull())),
                  DataTypes.FIELD("i", DataTypes.ARRAY(DataTypes.INT().notNull())),
                  DataTypes.FIELD("l", DataTypes.ARRAY(DataTypes.FLOAT().notNull())),
                  DataTypes.FIELD("s", DataTypes.STRING()))
              .getLogicalType();

  @TempDir Path dir;

  @Test
  void onlyFixedSizeListsOfFloatsAreVectorColumns() throws Exception {
    String uri = dir.resolve("t").toString();
    TestTables.create(uri, ROW_TYPE, Map.of("v", 4, "d", 3, "i", 2));
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open(uri, allocator)) {
      LanceReadSchema schema = LanceReadSchema.of(dataset);

      assertThat(VectorColumn.of(schema, "v")).isEqualTo(new VectorColumn("v", 4));
      assertThat(VectorColumn.of(schema, "d")).isEqualTo(new VectorColumn("d", 3));
      assertThatThrownBy(() -> VectorColumn.of(schema, "i"))
          .hasMessageStartingWith("Column 'i' has type i: FixedSizeList(2)")
          .hasMessageEndingWith(
              "not a vector of floats (a FixedSizeList of float16, float32 or float64)");
      assertThatThrownBy(() -> VectorColumn.of(schema, "l"))
          .hasMessageStartingWith("Column 'l' is a variable-length list (")
          .hasMessageEndingWith(
              "not a vector column: Lance searches fixed-size lists of floats, which a table gets"
                  + " when it is created with 'vector-columns' = 'l:<dimension>'");
      assertThatThrownBy(() -> VectorColumn.of(schema, "s"))
          .hasMessageStartingWith("Column 's' has type s: Utf8, not a vector of floats");
      assertThatThrownBy(() -> VectorColumn.of(schema, "nope"))
          .hasMessage("Column 'nope' does not exist; columns are [id, v, d, i, l, s]");
    }
  }
}
