package dev.flinklance.sink.writer;

import static dev.flinklance.sink.writer.SinkWriters.results;
import static dev.flinklance.sink.writer.SinkWriters.rows;
import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.sink.InvalidRecordPolicy;
import dev.flinklance.sink.LanceSink;
import dev.flinklance.sink.LanceSinkBuilder;
import dev.flinklance.sink.LanceSinkOptions;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestRows;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.LongStream;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.FragmentMetadata;

/**
 * The appending writer in Flink's sink writer operator on the operator test harness, on a real
 * table: the rows of each checkpoint go into fragment files handed on at the checkpoint's barrier
 * (the rest at the end of input), in arrival order, rolled at {@code sink.max-rows-per-file}; a
 * checkpoint without rows hands on nothing; nothing is ever committed by the writer. (A failed
 * write failing every later call of the writer: {@link WriteFailureTest}.)
 */
class LanceSinkWriterTest {
  @TempDir Path dir;
  private String table;

  @BeforeEach
  void tablePath() {
    table = dir.resolve("t").toString();
  }

  @Test
  void eachCheckpointHandsOnItsRowsInOneFileWithoutCommitting() throws Exception {
    try (var writer = SinkWriters.open(sink(), null)) {
      assertThat(LanceTestTables.latestVersion(table)).as("created by the writer").isEqualTo(1);
      write(writer, 0, 50);
      writer.prepareSnapshotPreBarrier(1);
      write(writer, 50, 100);
      writer.prepareSnapshotPreBarrier(2);
      write(writer, 100, 120);
      writer.endInput();
      assertThat(LanceTestTables.latestVersion(table)).as("nothing committed").isEqualTo(1);

      assertThat(rowsOf(writer, 1)).isEqualTo(expected(0, 50));
      assertThat(rowsOf(writer, 2)).isEqualTo(expected(50, 100));
      assertThat(rowsOf(writer, 3)).as("the end of input's").isEqualTo(expected(100, 120));
      assertThat(results(writer, 1).get(0).fragments()).hasSize(1);
      assertThat(results(writer, 1).get(0).removedKeys().isEmpty()).isTrue();
    }
  }

  @Test
  void rollsToANewFileAtMaxRowsPerFile() throws Exception {
    try (var writer = SinkWriters.open(sink().maxRowsPerFile(40), null)) {
      write(writer, 0, 100);
      writer.prepareSnapshotPreBarrier(1);

      List<FragmentMetadata> fragments = results(writer, 1).get(0).fragments();
      assertThat(fragments)
          .extracting(FragmentMetadata::getPhysicalRows)
          .containsExactly(40L, 40L, 20L);
      assertThat(rows(table, fragments, "id", "name")).isEqualTo(expected(0, 100));
    }
  }

  @Test
  void aCheckpointWithoutRowsHandsOnNothing() throws Exception {
    try (var writer = SinkWriters.open(sink(), null)) {
      writer.prepareSnapshotPreBarrier(1);
      write(writer, 0, 10);
      writer.prepareSnapshotPreBarrier(2);
      writer.prepareSnapshotPreBarrier(3);

      assertThat(results(writer, 1)).isEmpty();
      assertThat(rowsOf(writer, 2)).isEqualTo(expected(0, 10));
      assertThat(results(writer, 3)).isEmpty();
    }
  }

  /**
   * With {@code sink.on-invalid-record = SKIP}, a record that cannot be written leaves no trace:
   * the next row takes the place of the values it wrote before its bad one.
   */
  @Test
  void aSkippedRecordLeavesNothingInTheFile() throws Exception {
    RowType vectors =
        (RowType)
            DataTypes.ROW(
                    DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
                    DataTypes.FIELD("vec", DataTypes.ARRAY(DataTypes.FLOAT().notNull())))
                .getLogicalType();
    LanceSinkBuilder<RowData> sink =
        LanceSink.forRowData(vectors)
            .path(table)
            .vectorColumn("vec", 2)
            .set(LanceSinkOptions.SINK_ON_INVALID_RECORD, InvalidRecordPolicy.SKIP);
    try (var writer = SinkWriters.open(sink, null)) {
      writer.processElement(new StreamRecord<>(vector(1, 1f, 2f)));
      writer.processElement(new StreamRecord<>(vector(2, 3f, 4f, 5f))); // its id is written first
      writer.processElement(new StreamRecord<>(vector(3, 6f, 7f)));
      writer.prepareSnapshotPreBarrier(1);

      List<LanceWriteResult> results = results(writer, 1);
      assertThat(results).hasSize(1);
      assertThat(rows(table, results.get(0).fragments(), "id", "vec"))
          .containsExactly("1:[1.0,2.0]", "3:[6.0,7.0]");
    }
  }

  private static RowData vector(long id, float... values) {
    return GenericRowData.of(id, new GenericArrayData(values));
  }

  private LanceSinkBuilder<RowData> sink() {
    return LanceSink.forRowData(TestRows.ROW_TYPE).path(table);
  }

  private static void write(
      OneInputStreamOperatorTestHarness<RowData, CommittableMessage<LanceWriteResult>> writer,
      long from,
      long to)
      throws Exception {
    for (long id = from; id < to; id++) {
      writer.processElement(new StreamRecord<>(TestRows.row(id)));
    }
  }

  private List<String> rowsOf(
      OneInputStreamOperatorTestHarness<RowData, CommittableMessage<LanceWriteResult>> writer,
      long checkpoint) {
    List<LanceWriteResult> results = results(writer, checkpoint);
    assertThat(results).as("checkpoint %d", checkpoint).hasSize(1);
    return rows(table, results.get(0).fragments(), "id", "name");
  }

  private static List<String> expected(long from, long to) {
    return LongStream.range(from, to).mapToObj(id -> id + ":name-" + id).toList();
  }
}
