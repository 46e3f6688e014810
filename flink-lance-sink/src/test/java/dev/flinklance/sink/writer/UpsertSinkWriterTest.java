package dev.flinklance.sink.writer;

import static dev.flinklance.sink.writer.SinkWriters.results;
import static dev.flinklance.sink.writer.SinkWriters.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.key.PrimaryKey;
import dev.flinklance.key.RowKey;
import dev.flinklance.sink.LanceSink;
import dev.flinklance.sink.LanceSinkBuilder;
import dev.flinklance.sink.LanceSinkOptions;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestRows;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The writer of a sink with a primary key in Flink's sink writer operator on the operator test
 * harness, on a real table: each checkpoint's changes collapse by key into the latest row of each
 * upserted key (written at the barrier, in arrival order) and the list of every key changed (whose
 * rows in the table the commit deletes); the changes of one checkpoint must fit {@code
 * sink.upsert.max-buffer-size}; a restored writer starts empty (its source replays what came after
 * the checkpoint). It never commits.
 */
class UpsertSinkWriterTest {
  @TempDir Path dir;
  private String table;

  @BeforeEach
  void tablePath() {
    table = dir.resolve("t").toString();
  }

  @Test
  void aCheckpointsChangesCollapseToTheLatestRowOfEachKey() throws Exception {
    try (var writer = SinkWriters.open(sink(), null)) {
      write(
          writer,
          change(RowKind.INSERT, 1, "a"),
          change(RowKind.INSERT, 2, "b"),
          change(RowKind.UPDATE_BEFORE, 1, "a"),
          change(RowKind.UPDATE_AFTER, 1, "a2"),
          change(RowKind.INSERT, 3, "c"),
          change(RowKind.DELETE, 3, "c"),
          change(RowKind.INSERT, 4, "d"),
          change(RowKind.DELETE, 4, "d"),
          change(RowKind.INSERT, 4, "d2"));
      writer.prepareSnapshotPreBarrier(1);
      assertThat(LanceTestTables.latestVersion(table)).as("nothing committed").isEqualTo(1);

      LanceWriteResult result = onlyResult(writer, 1);
      assertThat(rows(table, result.fragments(), "id", "name"))
          .containsExactly("2:b", "1:a2", "4:d2");
      assertThat(result.removedKeys().inline())
          .containsExactlyInAnyOrderElementsOf(keys(1, 2, 3, 4));
    }
  }

  @Test
  void aCheckpointOfDeletesWritesNoFileAndRemovesTheirKeys() throws Exception {
    try (var writer = SinkWriters.open(sink(), null)) {
      write(writer, change(RowKind.DELETE, 5, "e"), change(RowKind.UPDATE_BEFORE, 6, "f"));
      writer.prepareSnapshotPreBarrier(1);

      LanceWriteResult result = onlyResult(writer, 1);
      assertThat(result.fragments()).isEmpty();
      assertThat(result.removedKeys().inline()).containsExactlyInAnyOrderElementsOf(keys(5, 6));
    }
  }

  @Test
  void eachCheckpointHandsOnOnlyTheChangesSinceTheLastOne() throws Exception {
    try (var writer = SinkWriters.open(sink(), null)) {
      write(writer, change(RowKind.INSERT, 1, "a"));
      writer.prepareSnapshotPreBarrier(1);
      write(writer, change(RowKind.UPDATE_AFTER, 1, "a2"), change(RowKind.INSERT, 2, "b"));
      writer.prepareSnapshotPreBarrier(2);
      writer.prepareSnapshotPreBarrier(3);
      write(writer, change(RowKind.DELETE, 2, "b"));
      writer.endInput();

      assertThat(rows(table, onlyResult(writer, 1).fragments(), "id", "name"))
          .containsExactly("1:a");
      assertThat(rows(table, onlyResult(writer, 2).fragments(), "id", "name"))
          .containsExactly("1:a2", "2:b");
      assertThat(onlyResult(writer, 2).removedKeys().inline())
          .containsExactlyInAnyOrderElementsOf(keys(1, 2));
      assertThat(results(writer, 3)).as("no changes").isEmpty();
      assertThat(onlyResult(writer, 4).removedKeys().inline())
          .as("the end of input's")
          .containsExactlyElementsOf(keys(2));
    }
  }

  /**
   * The changes the writer had when the job failed are not in its state: the restored writer's next
   * checkpoint holds only what came after the restore (the source replays the rest).
   */
  @Test
  void aRestoredWriterStartsWithoutTheChangesAfterItsCheckpoint() throws Exception {
    OperatorSubtaskState snapshot;
    try (var writer = SinkWriters.open(sink(), null)) {
      write(writer, change(RowKind.INSERT, 1, "a"));
      writer.prepareSnapshotPreBarrier(1);
      snapshot = writer.snapshot(1, 1);
      write(writer, change(RowKind.INSERT, 2, "lost"));
    }

    try (var restored = SinkWriters.open(sink(), snapshot)) {
      write(restored, change(RowKind.INSERT, 3, "c"));
      restored.prepareSnapshotPreBarrier(2);
      assertThat(LanceTestTables.latestVersion(table)).as("the first run's table").isEqualTo(1);

      LanceWriteResult result = onlyResult(restored, 2);
      assertThat(rows(table, result.fragments(), "id", "name")).containsExactly("3:c");
      assertThat(result.removedKeys().inline()).containsExactlyElementsOf(keys(3));
    }
  }

  /**
   * More changes in one checkpoint than {@code sink.upsert.max-buffer-size}: the write that
   * overflows fails naming the option, and so does every later call of the writer.
   */
  @Test
  void changesOutgrowingTheBufferFailTheWriterNamingTheOption() throws Exception {
    LanceSinkBuilder<RowData> sink =
        sink().set(LanceSinkOptions.SINK_UPSERT_MAX_BUFFER_SIZE, MemorySize.ofMebiBytes(2));
    String kilobyte = "x".repeat(1024);
    try (var writer = SinkWriters.open(sink, null)) {
      assertThatThrownBy(
              () -> {
                for (long id = 0; id < 4_000; id++) {
                  write(writer, change(RowKind.INSERT, id, kilobyte));
                }
              })
          .isInstanceOf(ChangeBufferFullException.class)
          .hasMessageContaining("Lance sink for '" + table + "'")
          .hasMessageContaining("the changes of subtask 0 of 1 since its last checkpoint")
          .hasMessageContaining("do not fit sink.upsert.max-buffer-size = 2 mb");

      assertThatThrownBy(() -> writer.prepareSnapshotPreBarrier(1))
          .isInstanceOf(IllegalStateException.class)
          .cause()
          .isInstanceOf(ChangeBufferFullException.class);
    }
  }

  private LanceSinkBuilder<RowData> sink() {
    return LanceSink.forRowData(TestRows.ROW_TYPE).path(table).primaryKey("id");
  }

  private static RowData change(RowKind kind, long id, String name) {
    GenericRowData row = GenericRowData.of(id, StringData.fromString(name));
    row.setRowKind(kind);
    return row;
  }

  private static void write(
      OneInputStreamOperatorTestHarness<RowData, CommittableMessage<LanceWriteResult>> writer,
      RowData... changes)
      throws Exception {
    for (RowData change : changes) {
      writer.processElement(new StreamRecord<>(change));
    }
  }

  private static LanceWriteResult onlyResult(
      OneInputStreamOperatorTestHarness<RowData, CommittableMessage<LanceWriteResult>> writer,
      long checkpoint) {
    List<LanceWriteResult> results = results(writer, checkpoint);
    assertThat(results).as("checkpoint %d", checkpoint).hasSize(1);
    return results.get(0);
  }

  private List<RowKey> keys(long... ids) {
    PrimaryKey key = PrimaryKey.of(TestRows.ROW_TYPE, List.of("id"), table);
    return Arrays.stream(ids).mapToObj(id -> key.keyOf(TestRows.row(id))).toList();
  }
}
