package dev.flinklance.sink.writer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;

/** A record in an error message: its values, nested ones too, within a bounded length. */
class RecordTextTest {
  private static final RowType TYPE =
      (RowType)
          DataTypes.ROW(
                  DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
                  DataTypes.FIELD("vec", DataTypes.ARRAY(DataTypes.FLOAT())),
                  DataTypes.FIELD("attrs", DataTypes.MAP(DataTypes.STRING(), DataTypes.INT())),
                  DataTypes.FIELD(
                      "point",
                      DataTypes.ROW(
                          DataTypes.FIELD("x", DataTypes.INT()),
                          DataTypes.FIELD("day", DataTypes.DATE()))),
                  DataTypes.FIELD("bytes", DataTypes.BYTES()),
                  DataTypes.FIELD("text", DataTypes.STRING()))
              .getLogicalType();

  @Test
  void showsTheValuesOfNestedArraysMapsRowsAndBinaries() {
    GenericRowData row =
        GenericRowData.ofKind(
            RowKind.UPDATE_AFTER,
            7L,
            new GenericArrayData(new Float[] {1.0f, null, 2.5f}),
            new GenericMapData(Map.of(StringData.fromString("a"), 1)),
            GenericRowData.of(3, 19_000),
            new byte[] {0x0a, (byte) 0xff},
            null);

    String expected = "+U[7, [1.0, null, 2.5], {a=1}, (3, 2022-01-08), x'0aff', null]";
    assertThat(new RecordText(TYPE).of(row)).isEqualTo(expected);
    BinaryRowData binary = new RowDataSerializer(TYPE).toBinaryRow(row);
    assertThat(new RecordText(TYPE).of(binary))
        .as("as Flink's own rows hold it")
        .isEqualTo(expected);
  }

  @Test
  void largeValuesAreCutSayingHowLargeTheyWere() {
    GenericRowData row =
        GenericRowData.of(
            1L,
            new GenericArrayData(new float[100_000]),
            null,
            null,
            new byte[1 << 20],
            StringData.fromString("x".repeat(100_000)));

    String text = new RecordText(TYPE).of(row);
    assertThat(text)
        .startsWith("+I[1, [0.0, 0.0, ")
        .contains("... (100000 elements)]")
        .hasSizeLessThan(RecordText.MAX_CHARS + 100);
    String onlyLargeText =
        new RecordText(TYPE)
            .of(
                GenericRowData.of(
                    1L, null, null, null, null, StringData.fromString("y".repeat(100_000))));
    assertThat(onlyLargeText)
        .contains("yyy... (100000 chars)]")
        .hasSizeLessThan(RecordText.MAX_CHARS + 100);
    String onlyLargeBinary =
        new RecordText(TYPE).of(GenericRowData.of(1L, null, null, null, new byte[1 << 20], null));
    assertThat(onlyLargeBinary)
        .contains("x'0000")
        .contains("... (1048576 bytes)'")
        .hasSizeLessThan(RecordText.MAX_CHARS + 100);
  }
}
