package dev.flinklance.index.scalar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.access.TableRef;
import dev.flinklance.index.scalar.ScalarIndexBuild.Action;
import dev.flinklance.index.scalar.ScalarIndexBuild.Built;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestTables;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * On real tables: a scalar index is built, left alone while it covers every fragment and brought up
 * to date after appends; a column it cannot serve is refused, naming the table and the column.
 */
class ScalarIndexBuildTest {
  static final RowType ROW_TYPE =
      (RowType)
          DataTypes.ROW(
                  DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
                  DataTypes.FIELD("score", DataTypes.DOUBLE()))
              .getLogicalType();

  @TempDir Path dir;

  static List<RowData> rows(long from, long to) {
    return LongStream.range(from, to)
        .<RowData>mapToObj(id -> GenericRowData.of(id, id * 0.5))
        .toList();
  }

  @Test
  void buildsThenLeavesAloneThenBringsUpToDate() {
    String uri = dir.resolve("t").toString();
    TestTables.write(uri, ROW_TYPE, rows(0, 100), 50);
    TableRef table = new TableRef(uri, Map.of());

    Built built = ScalarIndexBuild.create(table, "id");
    assertThat(built.index().name()).isEqualTo("id_key_idx");
    assertThat(built.index().column()).isEqualTo("id");
    assertThat(built.action()).isEqualTo(Action.BUILT);
    assertThat(built.action()).hasToString("built");
    assertThat(built.rowsIndexed()).isEqualTo(100);
    assertThat(built.tableVersion()).isEqualTo(LanceTestTables.latestVersion(uri));

    Built unchanged = ScalarIndexBuild.create(table, "id");
    assertThat(unchanged.action()).isEqualTo(Action.UNCHANGED);
    assertThat(unchanged.tableVersion()).isEqualTo(built.tableVersion());

    TestTables.append(uri, ROW_TYPE, rows(100, 130), 30);
    Built updated = ScalarIndexBuild.create(table, "id");
    assertThat(updated.action()).isEqualTo(Action.UPDATED);
    assertThat(updated.rowsIndexed()).isEqualTo(130);
    assertThat(updated.tableVersion())
        .isEqualTo(built.tableVersion() + 2)
        .isEqualTo(LanceTestTables.latestVersion(uri));
  }

  @Test
  void aColumnTheIndexCannotServeIsRefusedNamingIt() {
    String uri = dir.resolve("t").toString();
    TestTables.write(uri, ROW_TYPE, rows(0, 10), 10);
    TableRef table = new TableRef(uri, Map.of());
    long version = LanceTestTables.latestVersion(uri);

    assertThatThrownBy(() -> ScalarIndexBuild.create(table, "score"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "Lance table '"
                + table
                + "': column 'score' holds DOUBLE; a scalar index for lookups takes a column of"
                + " the types ");
    assertThatThrownBy(() -> ScalarIndexBuild.create(table, "nope"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Column 'nope' does not exist in the table");
    assertThat(LanceTestTables.latestVersion(uri)).isEqualTo(version);
  }
}
