package dev.flinklance.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.access.LanceDatasetOptions;
import dev.flinklance.arrow.Compression;
import dev.flinklance.arrow.UnsupportedTypeException;
import dev.flinklance.testing.TestRows;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;

/** Misconfiguration fails at build time, naming the option or column. */
class LanceSinkBuilderTest {

  @Test
  void buildsWithDefaults() {
    LanceSink<?> sink = LanceSink.forRowData(TestRows.ROW_TYPE).path(" /tmp/t ").build();
    LanceSinkConfig config = sink.config();
    assertThat(config.dataset().uri()).isEqualTo("/tmp/t");
    assertThat(config.commitUser()).isNull();
    assertThat(config.maxRowsPerFile()).isEqualTo(1_000_000);
    assertThat(config.maxBufferBytes()).isEqualTo(MemorySize.ofMebiBytes(64).getBytes());
    assertThat(config.layout().stableRowIds()).isFalse();
    assertThat(config.layout().vectorColumns()).isEmpty();
    assertThat(config.schemaEvolution()).isEqualTo(SchemaEvolutionMode.NONE);
  }

  /** The same key and values in DataStream and SQL (whose options reach the sink as strings). */
  @Test
  void schemaEvolutionIsSetByTheBuilderOrByItsKey() {
    assertThat(
            LanceSink.forRowData(TestRows.ROW_TYPE)
                .path("/tmp/t")
                .schemaEvolution(SchemaEvolutionMode.ADD_COLUMNS)
                .build()
                .config()
                .schemaEvolution())
        .isEqualTo(SchemaEvolutionMode.ADD_COLUMNS);
    for (String value : List.of("add-columns", "ADD-COLUMNS", "none")) {
      assertThat(
              LanceSink.forRowData(TestRows.ROW_TYPE)
                  .path("/tmp/t")
                  .options(Map.of("sink.schema-evolution", value))
                  .build()
                  .config()
                  .schemaEvolution()
                  .toString())
          .isEqualToIgnoringCase(value);
    }
  }

  @Test
  void anUnknownSchemaEvolutionIsRefusedNamingTheOptionAndItsValues() {
    assertThatThrownBy(
            () ->
                LanceSink.forRowData(TestRows.ROW_TYPE)
                    .path("/tmp/t")
                    .options(Map.of("sink.schema-evolution", "add_columns"))
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Invalid Lance sink option 'sink.schema-evolution': must be one of [none,"
                + " add-columns], got 'add_columns'");
  }

  @Test
  void relativeLocalPathsAreResolvedWhereTheSinkIsBuilt() {
    String uri =
        LanceSink.forRowData(TestRows.ROW_TYPE)
            .path("tables/../events")
            .build()
            .config()
            .dataset()
            .uri();
    assertThat(uri).isEqualTo(java.nio.file.Path.of("events").toAbsolutePath().toString());
    assertThat(
            LanceSink.forRowData(TestRows.ROW_TYPE)
                .path("file:///tmp/t")
                .build()
                .config()
                .dataset()
                .uri())
        .isEqualTo("file:///tmp/t");
  }

  @Test
  void carriesEverySetting() {
    LanceSinkConfig config =
        LanceSink.forRowData(vectorRow())
            .path("s3://bucket/t")
            .storageOptions(Map.of("aws_region", "eu-west-1"))
            .commitUser("ingest")
            .maxRowsPerFile(10)
            .maxBufferBytes(2L << 20)
            .stableRowIds(true)
            .vectorColumn("embedding", 8)
            .set(LanceSinkOptions.SINK_COMMIT_DEDUPE_MAX_VERSIONS, 7)
            .build()
            .config();
    assertThat(config.dataset().storageOptions()).containsEntry("aws_region", "eu-west-1");
    assertThat(config.commitUser()).isEqualTo("ingest");
    assertThat(config.maxRowsPerFile()).isEqualTo(10);
    assertThat(config.maxBufferBytes()).isEqualTo(2L << 20);
    assertThat(config.layout().stableRowIds()).isTrue();
    assertThat(config.layout().vectorColumns()).containsExactly(Map.entry("embedding", 8));
    assertThat(config.dedupeMaxVersions()).isEqualTo(7);
  }

  @Test
  void aPrimaryKeyIsCheckedAtBuildTime() {
    RowType rows =
        (RowType)
            DataTypes.ROW(
                    DataTypes.FIELD("id", DataTypes.BIGINT()),
                    DataTypes.FIELD("score", DataTypes.FLOAT()))
                .getLogicalType();
    assertThatThrownBy(() -> LanceSink.forRowData(rows).path("/tmp/t").primaryKey("score").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Primary key column 'score' of Lance table '/tmp/t' has type FLOAT");
    assertThatThrownBy(() -> LanceSink.forRowData(rows).path("/tmp/t").primaryKey("ids").build())
        .hasMessageContaining("Primary key column 'ids' of Lance table '/tmp/t' is not a column");
    LanceSinkConfig config =
        LanceSink.forRowData(rows).path("/tmp/t").primaryKey("id").build().config();
    assertThat(config.primaryKey())
        .hasValueSatisfying(k -> assertThat(k.columns()).containsExactly("id"));
    assertThat(config.upsertMaxBufferBytes()).isEqualTo(MemorySize.ofMebiBytes(256).getBytes());
    assertThat(config.upsertKeyIndex()).isTrue();
  }

  @Test
  void pathIsRequired() {
    assertThatThrownBy(() -> LanceSink.forRowData(TestRows.ROW_TYPE).build())
        .hasMessage("Invalid Lance sink option 'path': must be set to the table's URI");
  }

  @Test
  void numericOptionsAreRangeChecked() {
    assertThatThrownBy(() -> sinkAt().maxRowsPerFile(0).build())
        .hasMessageContaining("'sink.max-rows-per-file': must be positive, got 0");
    assertThatThrownBy(() -> sinkAt().maxBufferBytes(1024).build())
        .hasMessageContaining("'sink.max-buffer-size': must be at least 2 mb");
    assertThatThrownBy(() -> sinkAt().set(LanceSinkOptions.SINK_COMMIT_MAX_ATTEMPTS, 0).build())
        .hasMessageContaining("'sink.commit.max-attempts'");
    assertThatThrownBy(() -> sinkAt().commitUser(" ").build())
        .hasMessageContaining("'sink.commit-user': must not be blank");
  }

  @Test
  void vectorColumnsAreChecked() {
    assertThatThrownBy(
            () -> LanceSink.forRowData(vectorRow()).path("/t").vectorColumn("nope", 4).build())
        .hasMessageContaining("Vector column 'nope' does not exist");
    assertThatThrownBy(
            () -> LanceSink.forRowData(vectorRow()).path("/t").vectorColumn("id", 4).build())
        .hasMessageContaining(
            "Vector column 'id' must be an ARRAY of a numeric type, but is BIGINT");
    assertThatThrownBy(
            () -> LanceSink.forRowData(vectorRow()).path("/t").vectorColumn("embedding", 0).build())
        .hasMessageContaining("Vector column 'embedding' needs a positive dimension, got 0");
    assertThatThrownBy(
            () ->
                LanceSink.forRowData(vectorRow())
                    .path("/t")
                    .set(LanceDatasetOptions.VECTOR_COLUMNS, Map.of("embedding", "x"))
                    .build())
        .hasMessageContaining("'vector-columns': dimension of 'embedding' is not a number: 'x'");
  }

  @Test
  void unsupportedTypesFailAtBuildTimeNamingTheColumn() {
    RowType interval =
        (RowType)
            DataTypes.ROW(
                    DataTypes.FIELD(
                        "nested",
                        DataTypes.ROW(
                            DataTypes.FIELD("span", DataTypes.INTERVAL(DataTypes.DAY())))))
                .getLogicalType();
    assertThatThrownBy(() -> LanceSink.forRowData(interval).path("/t").build())
        .isInstanceOf(UnsupportedTypeException.class)
        .hasMessageStartingWith("Column 'nested.span' has type INTERVAL");
    RowType multiset =
        (RowType)
            DataTypes.ROW(
                    DataTypes.FIELD("tags", DataTypes.ARRAY(DataTypes.MULTISET(DataTypes.INT()))))
                .getLogicalType();
    assertThatThrownBy(() -> LanceSink.forRowData(multiset).path("/t").build())
        .hasMessageStartingWith("Column 'tags[]' has type MULTISET<INT>");
  }

  private static LanceSinkBuilder<?> sinkAt() {
    return LanceSink.forRowData(TestRows.ROW_TYPE).path("/t");
  }

  @Test
  void badCompressionFailsAtBuildTimeNamingTheOptionAndTheColumn() {
    assertThatThrownBy(
            () -> vectorSink().options(Map.of("sink.compression.columns", "id:brotli")).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'sink.compression.columns'")
        .hasMessageContaining("column 'id'")
        .hasMessageContaining("'brotli'");
    assertThatThrownBy(() -> vectorSink().columnCompression("idd", Compression.ZSTD).build())
        .hasMessageContaining("'sink.compression.columns'")
        .hasMessageContaining("[idd]")
        .hasMessageContaining("[id, embedding]");
    assertThatThrownBy(() -> vectorSink().options(Map.of("sink.compression", "gzip")).build())
        .hasMessageContaining("sink.compression");
    assertThatThrownBy(
            () -> vectorSink().compression(Compression.ZSTD).compressionLevel(23).build())
        .hasMessageContaining("'sink.compression-level'")
        .hasMessageContaining("1 to 22, got 23");
    assertThatThrownBy(() -> vectorSink().compression(Compression.LZ4).compressionLevel(3).build())
        .hasMessageContaining("'sink.compression-level'")
        .hasMessageContaining("no column is compressed with zstd");
  }

  @Test
  void compressionIsRefusedForAFileFormatThatWritesNone() {
    for (String format : List.of("2.0", "legacy")) {
      assertThatThrownBy(
              () ->
                  vectorSink()
                      .set(LanceDatasetOptions.DATA_STORAGE_VERSION, format)
                      .compression(Compression.ZSTD)
                      .build())
          .hasMessageContaining("'sink.compression'")
          .hasMessageContaining("'data-storage-version'")
          .hasMessageContaining("file format " + format + " ");
      assertThatThrownBy(
              () ->
                  vectorSink()
                      .set(LanceDatasetOptions.DATA_STORAGE_VERSION, format)
                      .columnCompression("id", Compression.LZ4)
                      .build())
          .hasMessageContaining("'sink.compression.columns'");
    }
    // the default compression is the format's to decide: 2.0 gets none
    assertThat(
            vectorSink()
                .set(LanceDatasetOptions.DATA_STORAGE_VERSION, "2.0")
                .build()
                .config()
                .layout()
                .schemaFor(vectorRow())
                .getFields())
        .allSatisfy(field -> assertThat(field.getMetadata()).isEmpty());
    vectorSink()
        .set(LanceDatasetOptions.DATA_STORAGE_VERSION, "2.0")
        .compression(Compression.NONE)
        .build();
  }

  private static LanceSinkBuilder<RowData> vectorSink() {
    return LanceSink.forRowData(vectorRow()).path("/tmp/t").vectorColumn("embedding", 8);
  }

  private static RowType vectorRow() {
    return (RowType)
        DataTypes.ROW(
                DataTypes.FIELD("id", DataTypes.BIGINT()),
                DataTypes.FIELD("embedding", DataTypes.ARRAY(DataTypes.FLOAT())))
            .getLogicalType();
  }
}
