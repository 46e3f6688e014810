package dev.flinklance.table.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.apache.flink.table.api.ValidationException;
import org.junit.jupiter.api.Test;

class TableOptionsTest {

  @Test
  void entriesOfColumnsTheTableLacksAreLeftOut() {
    Map<String, String> options =
        Map.of(
            "vector-columns", "emb:4,gone:8",
            "sink.compression.columns", "note:zstd",
            "sink.max-rows-per-file", "10");
    assertThat(TableOptions.forColumns(options, List.of("id", "emb")))
        .isEqualTo(Map.of("vector-columns", "emb:4", "sink.max-rows-per-file", "10"));
    assertThat(TableOptions.forColumns(options, List.of("emb", "gone", "note"))).isEqualTo(options);
  }

  @Test
  void vectorColumnsGainEntriesOnlyForColumnsTheTableLacks() {
    Map<String, String> before = Map.of("vector-columns", "emb:4");
    List<String> columns = List.of("id", "emb");
    TableOptions.checkVectorColumns(
        "db.t", before, Map.of("vector-columns", "emb:4,next:8"), columns);
    TableOptions.checkVectorColumns("db.t", before, Map.of("vector-columns", "emb: 4"), columns);
    assertThatThrownBy(
            () ->
                TableOptions.checkVectorColumns(
                    "db.t", before, Map.of("vector-columns", "emb:8"), columns))
        .isInstanceOf(ValidationException.class)
        .hasMessageContaining(
            "Option 'vector-columns' of table db.t: column 'emb' exists, a vector of dimension 4;"
                + " its entry cannot change");
    assertThatThrownBy(() -> TableOptions.checkVectorColumns("db.t", before, Map.of(), columns))
        .hasMessageContaining("column 'emb' exists");
    assertThatThrownBy(
            () ->
                TableOptions.checkVectorColumns(
                    "db.t", before, Map.of("vector-columns", "emb:4,id:2"), columns))
        .hasMessageContaining("column 'id' exists, not a vector column");
  }
}
