package dev.flinklance.sink.it;

import static dev.flinklance.arrow.ColumnCompression.LEVEL_KEY;
import static dev.flinklance.arrow.ColumnCompression.SCHEME_KEY;
import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.arrow.Compression;
import dev.flinklance.sink.LanceSink;
import dev.flinklance.sink.LanceSinkBuilder;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestClusters;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sink.compression}, {@code sink.compression-level} and {@code sink.compression.columns} on
 * real tables: the field metadata Lance keeps in the table's schema, the bytes of the data files,
 * the rows read back, and tables that already exist keeping their own compression.
 */
class CompressionITCase {
  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  private static final int ROWS = 20_000;
  private static final int DIMENSION = 8;
  private static final List<String> COLUMNS = List.of("id", "action", "tags", "point", "embedding");

  private static final RowType TYPE =
      (RowType)
          DataTypes.ROW(
                  DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
                  DataTypes.FIELD("action", DataTypes.STRING()),
                  DataTypes.FIELD("tags", DataTypes.ARRAY(DataTypes.STRING())),
                  DataTypes.FIELD(
                      "point",
                      DataTypes.ROW(
                          DataTypes.FIELD("label", DataTypes.STRING()),
                          DataTypes.FIELD("weight", DataTypes.DOUBLE()))),
                  DataTypes.FIELD("embedding", DataTypes.ARRAY(DataTypes.FLOAT().notNull())))
              .getLogicalType();

  @TempDir Path dir;

  @Test
  void aNewTableCarriesEachColumnsCompressionAndReadsBackExactly() throws Exception {
    String plain = dir.resolve("plain").toString();
    String compressed = dir.resolve("compressed").toString();
    write(plain, b -> b);
    write(
        compressed,
        b ->
            b.compression(Compression.ZSTD)
                .compressionLevel(9)
                .columnCompression("tags", Compression.LZ4)
                .columnCompression("id", Compression.NONE));

    Map<String, Map<String, String>> metadata = LanceTestTables.fieldMetadata(compressed);
    assertThat(metadata.get("action"))
        .containsEntry(SCHEME_KEY, "zstd")
        .containsEntry(LEVEL_KEY, "9");
    // a nested column's every field carries it: Lance compresses a leaf by its own field
    assertThat(metadata.get("tags")).containsEntry(SCHEME_KEY, "lz4").doesNotContainKey(LEVEL_KEY);
    assertThat(metadata.get("tags.item")).containsEntry(SCHEME_KEY, "lz4");
    assertThat(metadata.get("point.label")).containsEntry(SCHEME_KEY, "zstd");
    assertThat(metadata.get("point.weight")).containsEntry(SCHEME_KEY, "zstd");
    assertThat(metadata.get("id")).doesNotContainKey(SCHEME_KEY);
    // vector columns take only their own setting
    assertThat(metadata.get("embedding")).doesNotContainKey(SCHEME_KEY);
    assertThat(LanceTestTables.fieldMetadata(plain).values())
        .allSatisfy(field -> assertThat(field).doesNotContainKey(SCHEME_KEY));
    // compressed columns take 2.2, which compresses better; the rest Lance's default
    assertThat(LanceTestTables.fileFormat(compressed)).isEqualTo("2.2");
    assertThat(LanceTestTables.fileFormat(plain)).isEqualTo("2.1");

    assertThat(LanceTestTables.readColumns(compressed, COLUMNS))
        .isEqualTo(LanceTestTables.readColumns(plain, COLUMNS))
        .hasSize(ROWS);
    assertThat(LanceTestTables.readLongs(compressed, "id"))
        .isEqualTo(java.util.stream.LongStream.range(0, ROWS).boxed().toList());
    assertThat(LanceTestTables.readColumns(compressed, List.of("action")).get(7))
        .containsExactly(new org.apache.arrow.vector.util.Text(action(7)));
    // the embeddings (128 of 180 bytes a row) do not compress
    assertThat(LanceTestTables.fragmentBytes(compressed).get(0))
        .isLessThan(LanceTestTables.fragmentBytes(plain).get(0) * 9 / 10);
  }

  @Test
  void aConfiguredFileFormatIsKeptWithCompression() throws Exception {
    String table = dir.resolve("format-2-1").toString();
    write(
        table,
        b ->
            b.compression(Compression.ZSTD)
                .set(dev.flinklance.access.LanceDatasetOptions.DATA_STORAGE_VERSION, "2.1"));
    assertThat(LanceTestTables.fileFormat(table)).isEqualTo("2.1");
    assertThat(LanceTestTables.fieldMetadata(table).get("action"))
        .containsEntry(SCHEME_KEY, "zstd");
    assertThat(LanceTestTables.countRows(table)).isEqualTo(ROWS);
  }

  @Test
  void aVectorColumnTakesItsOwnSetting() throws Exception {
    String table = dir.resolve("vectors").toString();
    write(table, b -> b.columnCompression("embedding", Compression.ZSTD));
    Map<String, Map<String, String>> metadata = LanceTestTables.fieldMetadata(table);
    assertThat(metadata.get("embedding")).containsEntry(SCHEME_KEY, "zstd");
    assertThat(metadata.get("action")).doesNotContainKey(SCHEME_KEY);
  }

  @Test
  void anUncompressedTableStaysUncompressedWhenTheSinkAsksForCompression() throws Exception {
    String table = dir.resolve("stays-plain").toString();
    write(table, b -> b);
    write(table, b -> b.compression(Compression.ZSTD));

    assertThat(LanceTestTables.fieldMetadata(table).values())
        .allSatisfy(field -> assertThat(field).doesNotContainKey(SCHEME_KEY));
    List<Long> files = LanceTestTables.fragmentBytes(table);
    assertThat(files).hasSize(2);
    assertThat(files.get(1)).isEqualTo(files.get(0)); // the same rows, the same encodings
    assertThat(LanceTestTables.countRows(table)).isEqualTo(2L * ROWS);
  }

  @Test
  void aCompressedTableStaysCompressedWhenTheSinkAsksForNone() throws Exception {
    String table = dir.resolve("stays-compressed").toString();
    String plain = dir.resolve("plain").toString();
    write(table, b -> b.compression(Compression.ZSTD));
    write(table, b -> b.compression(Compression.NONE));
    write(plain, b -> b.compression(Compression.NONE));

    assertThat(LanceTestTables.fieldMetadata(table).get("action"))
        .containsEntry(SCHEME_KEY, "zstd");
    List<Long> files = LanceTestTables.fragmentBytes(table);
    assertThat(files).hasSize(2);
    assertThat(files.get(1)).isEqualTo(files.get(0));
    assertThat(files.get(1)).isLessThan(LanceTestTables.fragmentBytes(plain).get(0) * 9 / 10);
    assertThat(LanceTestTables.readColumns(table, COLUMNS).subList(ROWS, 2 * ROWS))
        .isEqualTo(LanceTestTables.readColumns(plain, COLUMNS));
  }

  private static void write(String uri, UnaryOperator<LanceSinkBuilder<RowData>> options)
      throws Exception {
    List<RowData> rows = new ArrayList<>();
    for (int i = 0; i < ROWS; i++) {
      rows.add(row(i));
    }
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(1);
    LanceSinkBuilder<RowData> sink =
        LanceSink.forRowData(TYPE).path(uri).vectorColumn("embedding", DIMENSION);
    env.fromData(rows, InternalTypeInfo.of(TYPE)).sinkTo(options.apply(sink).build());
    env.execute();
  }

  private static String action(long id) {
    return List.of("view", "click", "scroll", "purchase").get((int) (id * 7 % 4));
  }

  private static RowData row(long id) {
    Float[] embedding = new Float[DIMENSION];
    for (int i = 0; i < DIMENSION; i++) {
      embedding[i] = (float) Math.sin(id * 31 + i);
    }
    StringData[] tags = {StringData.fromString("t" + id % 5), StringData.fromString("x" + id % 3)};
    return GenericRowData.of(
        id,
        StringData.fromString(action(id)),
        new GenericArrayData(tags),
        GenericRowData.of(StringData.fromString("label-" + id % 11), (double) (id % 100)),
        new GenericArrayData(embedding));
  }
}
