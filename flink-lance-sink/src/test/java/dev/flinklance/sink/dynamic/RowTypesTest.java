package dev.flinklance.sink.dynamic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;

/**
 * Which record types a dynamic sink's table column takes, and how the schemas of records combine.
 */
class RowTypesTest {

  private static LogicalType type(org.apache.flink.table.types.DataType type) {
    return type.getLogicalType();
  }

  @Test
  void typesStoredAlikeAreTheSameColumn() {
    assertThat(RowTypes.takes(type(DataTypes.STRING()), type(DataTypes.VARCHAR(10)))).isTrue();
    assertThat(RowTypes.takes(type(DataTypes.VARCHAR(10)), type(DataTypes.CHAR(3)))).isTrue();
    assertThat(RowTypes.takes(type(DataTypes.BYTES()), type(DataTypes.VARBINARY(4)))).isTrue();
    assertThat(RowTypes.takes(type(DataTypes.INT()), type(DataTypes.INT().notNull()))).isTrue();
  }

  @Test
  void narrowerValuesWidenWithoutLossAndWiderOnesAreRefused() {
    assertThat(RowTypes.takes(type(DataTypes.BIGINT()), type(DataTypes.INT()))).isTrue();
    assertThat(RowTypes.takes(type(DataTypes.INT()), type(DataTypes.TINYINT()))).isTrue();
    assertThat(RowTypes.takes(type(DataTypes.DOUBLE()), type(DataTypes.FLOAT()))).isTrue();
    assertThat(RowTypes.takes(type(DataTypes.DECIMAL(20, 2)), type(DataTypes.DECIMAL(10, 2))))
        .isTrue();
    assertThat(RowTypes.takes(type(DataTypes.TIMESTAMP(6)), type(DataTypes.TIMESTAMP(3)))).isTrue();

    assertThat(RowTypes.takes(type(DataTypes.INT()), type(DataTypes.BIGINT()))).isFalse();
    assertThat(RowTypes.takes(type(DataTypes.FLOAT()), type(DataTypes.DOUBLE()))).isFalse();
    assertThat(RowTypes.takes(type(DataTypes.DECIMAL(20, 2)), type(DataTypes.DECIMAL(10, 3))))
        .isFalse();
    assertThat(RowTypes.takes(type(DataTypes.DOUBLE()), type(DataTypes.BIGINT()))).isFalse();
    assertThat(RowTypes.takes(type(DataTypes.STRING()), type(DataTypes.INT()))).isFalse();
    assertThat(RowTypes.takes(type(DataTypes.TIMESTAMP_LTZ(6)), type(DataTypes.TIMESTAMP(3))))
        .isFalse();
  }

  @Test
  void convertersWidenTheValues() {
    assertThat(RowTypes.converter(type(DataTypes.BIGINT()), type(DataTypes.INT())).apply(7))
        .isEqualTo(7L);
    assertThat(RowTypes.converter(type(DataTypes.DOUBLE()), type(DataTypes.FLOAT())).apply(0.5f))
        .isEqualTo(0.5d);
    DecimalData widened =
        (DecimalData)
            RowTypes.converter(type(DataTypes.DECIMAL(20, 2)), type(DataTypes.DECIMAL(10, 2)))
                .apply(DecimalData.fromBigDecimal(new BigDecimal("12345678.90"), 10, 2));
    assertThat(widened.precision()).isEqualTo(20);
    assertThat(widened.toBigDecimal()).isEqualByComparingTo("12345678.90");
  }

  @Test
  void theUnionKeepsTheTablesTypesAndAddsNewColumnsNullable() {
    RowType table =
        (RowType)
            type(
                DataTypes.ROW(
                    DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
                    DataTypes.FIELD("s", DataTypes.STRING())));
    RowType record =
        (RowType)
            type(
                DataTypes.ROW(
                    DataTypes.FIELD("id", DataTypes.INT().notNull()),
                    DataTypes.FIELD("s", DataTypes.VARCHAR(5)),
                    DataTypes.FIELD("n", DataTypes.DOUBLE().notNull())));

    RowType union = RowTypes.union(table, record, "/w/db/t.lance");

    assertThat(union.getFieldNames()).containsExactly("id", "s", "n");
    assertThat(union.getTypeAt(0)).isEqualTo(table.getTypeAt(0));
    assertThat(union.getTypeAt(1)).isEqualTo(table.getTypeAt(1));
    assertThat(union.getTypeAt(2).isNullable()).as("an added column is nullable").isTrue();
    assertThat(RowTypes.covers(union, record)).isTrue();
  }

  @Test
  void aWiderRecordTypeIsRefusedNamingTableColumnAndBothTypes() {
    RowType table = (RowType) type(DataTypes.ROW(DataTypes.FIELD("v", DataTypes.INT())));
    RowType record = (RowType) type(DataTypes.ROW(DataTypes.FIELD("v", DataTypes.BIGINT())));

    assertThatThrownBy(() -> RowTypes.union(table, record, "/w/db/t.lance"))
        .hasMessageContaining("Column 'v' of Lance table '/w/db/t.lance' is INT")
        .hasMessageContaining("as BIGINT");
  }
}
