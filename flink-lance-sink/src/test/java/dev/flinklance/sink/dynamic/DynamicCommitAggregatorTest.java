package dev.flinklance.sink.dynamic;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.sink.testing.CommittableOutput;
import dev.flinklance.sink.writer.LanceWriteResult;
import java.nio.file.Path;
import java.util.List;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableSummary;
import org.apache.flink.streaming.api.connector.sink2.CommittableWithLineage;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.FragmentMetadata;
import org.lance.fragment.DataFile;

/**
 * The dynamic sink's aggregator on Flink's operator test harness: one committable per table per
 * checkpoint, numbered per table within the run, none for a table whose results are empty.
 */
class DynamicCommitAggregatorTest {
  @TempDir Path dir;

  @Test
  void oneCommittablePerTableAndCheckpointNumberedPerTable() throws Exception {
    try (var harness = open()) {
      harness.processElement(result(1, "a", fragment("a1")));
      harness.processElement(result(1, "b", fragment("b1")));
      harness.processElement(result(1, "a", fragment("a2")));
      harness.prepareSnapshotPreBarrier(1);
      harness.processElement(result(2, "a", fragment("a3")));
      harness.prepareSnapshotPreBarrier(2);

      List<CommittableMessage<DynamicCommittable>> out = harness.extractOutputValues();
      assertThat(out)
          .filteredOn(m -> m instanceof CommittableSummary)
          .extracting(m -> ((CommittableSummary<?>) m).getNumberOfCommittables())
          .containsExactly(2, 1);
      List<DynamicCommittable> committables = committables(out);
      assertThat(committables)
          .extracting(c -> c.table().table() + "#" + c.committable().stamp().runSeq())
          .containsExactly("a#1", "b#1", "a#2");
      assertThat(committables.get(0).committable().fragments()).hasSize(2);
      assertThat(committables)
          .extracting(c -> c.committable().stamp().run())
          .as("one sink run")
          .containsOnly(committables.get(0).committable().stamp().run());
    }
  }

  /** A table a writer closed with nothing written must not become an empty Append. */
  @Test
  void aTableWithoutFragmentsOrKeysEmitsNothing() throws Exception {
    try (var harness = open()) {
      harness.processElement(result(1, "empty"));
      harness.processElement(result(1, "a", fragment("a1")));
      harness.prepareSnapshotPreBarrier(1);
      harness.processElement(result(2, "empty"));
      harness.prepareSnapshotPreBarrier(2);

      List<CommittableMessage<DynamicCommittable>> out = harness.extractOutputValues();
      assertThat(committables(out)).extracting(c -> c.table().table()).containsExactly("a");
      assertThat(out).filteredOn(m -> m instanceof CommittableSummary).hasSize(1);
    }
  }

  private OneInputStreamOperatorTestHarness<
          CommittableMessage<TableWriteResult>, CommittableMessage<DynamicCommittable>>
      open() throws Exception {
    DynamicSinkConfig config =
        DynamicLanceSink.builder().warehouse(dir.toString()).commitUser("user").build().config();
    var harness =
        new OneInputStreamOperatorTestHarness<
            CommittableMessage<TableWriteResult>, CommittableMessage<DynamicCommittable>>(
            new DynamicCommitAggregator(config));
    CommittableOutput.setUp(harness, DynamicCommittableSerializer::new);
    harness.initializeState((OperatorSubtaskState) null);
    harness.open();
    return harness;
  }

  private static List<DynamicCommittable> committables(
      List<CommittableMessage<DynamicCommittable>> out) {
    return out.stream()
        .filter(m -> m instanceof CommittableWithLineage)
        .map(m -> ((CommittableWithLineage<DynamicCommittable>) m).getCommittable())
        .toList();
  }

  private static StreamRecord<CommittableMessage<TableWriteResult>> result(
      long checkpoint, String table, FragmentMetadata... fragments) {
    return new StreamRecord<>(
        new CommittableWithLineage<>(
            new TableWriteResult(
                new TableName("db", table), null, new LanceWriteResult(List.of(fragments))),
            checkpoint,
            0));
  }

  private static FragmentMetadata fragment(String file) {
    return new FragmentMetadata(
        0,
        List.of(new DataFile(file, new int[] {0}, new int[] {0}, 2, 1, 10L, null)),
        5L,
        null,
        null);
  }
}
