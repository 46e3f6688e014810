package dev.flinklance.sink.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.sink.LanceSink;
import dev.flinklance.sink.LanceSinkBuilder;
import dev.flinklance.testing.LanceTestTables;
import java.nio.file.Path;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.runtime.operators.sink.SinkWriterOperatorFactory;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A write that failed, whose exception an operator before the writer swallowed (as Flink's JSON
 * format does with 'json.ignore-parse-errors'), fails the writer's next write, its flush and its
 * checkpoint, naming the record and carrying the failure: the checkpoint cannot complete without
 * the record. Both writers, in Flink's own sink writer operator.
 */
class WriteFailureTest {
  private static final RowType TYPE =
      (RowType)
          DataTypes.ROW(
                  DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
                  DataTypes.FIELD("vec", DataTypes.ARRAY(DataTypes.FLOAT().notNull())))
              .getLogicalType();

  @TempDir Path dir;

  @ParameterizedTest(name = "primary key: {0}")
  @ValueSource(booleans = {false, true})
  void aSwallowedWriteFailureFailsEveryLaterCallOfTheWriter(boolean primaryKey) throws Exception {
    String table = dir.resolve("t").toString();
    LanceSinkBuilder<RowData> sink = LanceSink.forRowData(TYPE).path(table).vectorColumn("vec", 3);
    if (primaryKey) {
      sink.primaryKey("id");
    }
    try (OneInputStreamOperatorTestHarness<RowData, CommittableMessage<LanceWriteResult>> writer =
        new OneInputStreamOperatorTestHarness<>(new SinkWriterOperatorFactory<>(sink.build()))) {
      writer.open();
      writer.processElement(new StreamRecord<>(row(1, 3)));
      // what an operator before the sink that catches every exception would let pass
      assertThatThrownBy(() -> writer.processElement(new StreamRecord<>(row(2, 2))))
          .isInstanceOf(InvalidRecordException.class)
          .hasMessageContaining("'vec'");

      for (ThrowingCall call :
          new ThrowingCall[] {
            () -> writer.processElement(new StreamRecord<>(row(3, 3))),
            () -> writer.prepareSnapshotPreBarrier(1),
            writer::endInput
          }) {
        assertThatThrownBy(call::run)
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("record #2 of subtask 0 of 1 failed, yet the job went on")
            .hasMessageContaining(table)
            .hasMessageContaining("'vec'")
            .cause()
            .isInstanceOf(InvalidRecordException.class);
      }
    }
    assertThat(LanceTestTables.countRows(table)).isZero();
  }

  private interface ThrowingCall {
    void run() throws Exception;
  }

  private static RowData row(long id, int dimension) {
    return GenericRowData.of(id, new GenericArrayData(new float[dimension]));
  }
}
