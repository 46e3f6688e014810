package dev.flinklance.compactor.lineage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lance.fragment.RowIdMeta;

class RowIdMetaJsonTest {

  @Test
  void readsTheBytesOfAnInlineSequenceAsLanceEncodesThem() {
    RowIdMeta meta = RowIdMeta.fromRowIds(new long[] {5, 9, 3, 4, 5, 6});

    byte[] bytes = RowIdMetaJson.inlineBytes(meta).orElseThrow();

    assertThat(meta.getMetadata()).startsWith("{\"Inline\":[");
    assertThat(bytes).hasSize(meta.getMetadata().split(",").length);
    assertThat(bytes[0]).isEqualTo((byte) 10);
    assertThat(RowIdMetaJson.externalSlice(meta)).isEmpty();
  }

  @Test
  void writesAndReadsExternalSlices() {
    RowIdMeta meta = RowIdMetaJson.external("_rowids-a.bin", 12, 345);

    assertThat(meta.getMetadata())
        .isEqualTo("{\"External\":{\"path\":\"_rowids-a.bin\",\"offset\":12,\"size\":345}}");
    assertThat(RowIdMetaJson.externalSlice(meta))
        .contains(new RowIdMetaJson.ExternalSlice("_rowids-a.bin", 12, 345));
    assertThat(RowIdMetaJson.inlineBytes(meta)).isEmpty();
  }

  @Test
  void readsWhitespaceAndAnyKeyOrder() {
    assertThat(RowIdMetaJson.inlineBytes(new RowIdMeta("{ \"Inline\" : [ 1 , 2,\n255 ] }")))
        .hasValueSatisfying(bytes -> assertThat(bytes).containsExactly(1, 2, (byte) 255));
    assertThat(
            RowIdMetaJson.externalSlice(
                new RowIdMeta(
                    "{\"External\": {\"size\": 345, \"path\": \"_rowids-\\\"q.bin\","
                        + " \"offset\": 12}}")))
        .contains(new RowIdMetaJson.ExternalSlice("_rowids-\"q.bin", 12, 345));
    assertThat(RowIdMetaJson.externalSlice(RowIdMetaJson.external("_rowids-\"q.bin", 1, 2)))
        .contains(new RowIdMetaJson.ExternalSlice("_rowids-\"q.bin", 1, 2));
  }

  @Test
  void malformedMetadataIsAClearError() {
    for (String json :
        new String[] {
          "{\"Inline\":[1,256]}", "{\"Inline\":[1,-1]}", "{\"Inline\":{}}", "{\"Inline\":[1,"
        }) {
      assertThatThrownBy(() -> RowIdMetaJson.inlineBytes(new RowIdMeta(json)))
          .as(json)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("row-id metadata");
    }
    assertThatThrownBy(
            () -> RowIdMetaJson.externalSlice(new RowIdMeta("{\"External\":{\"path\":1}}")))
        .hasMessageContaining("Unexpected row-id metadata");
  }

  @Test
  void rejectsSideFilePathsLanceWouldNotFind() {
    assertThatThrownBy(() -> RowIdMetaJson.external("lineage/a.bin", 0, 1))
        .hasMessageContaining("one path segment");
  }

  @Test
  void tableConfigIsValidatedWithTheKeyAndTheTable() {
    assertThat(RowLineageConfig.of(Map.of(), "t")).isEqualTo(new RowLineageConfig(false, 204_800));
    assertThat(
            RowLineageConfig.of(
                Map.of(RowLineageConfig.SPILL, "TRUE", RowLineageConfig.INLINE_MAX_BYTES, "64"),
                "t"))
        .isEqualTo(new RowLineageConfig(true, 64));
    assertThatThrownBy(() -> RowLineageConfig.of(Map.of(RowLineageConfig.SPILL, "yes"), "s3://b/t"))
        .hasMessageContaining("lance.row_lineage.spill")
        .hasMessageContaining("s3://b/t");
    assertThatThrownBy(
            () -> RowLineageConfig.of(Map.of(RowLineageConfig.INLINE_MAX_BYTES, "lots"), "t"))
        .hasMessageContaining("lance.row_lineage.inline_max_bytes");
  }
}
