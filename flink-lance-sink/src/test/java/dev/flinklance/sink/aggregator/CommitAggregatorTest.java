package dev.flinklance.sink.aggregator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.sink.committer.LanceCommittable;
import dev.flinklance.sink.writer.LanceWriteResult;
import java.util.List;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableSummary;
import org.apache.flink.streaming.api.connector.sink2.CommittableWithLineage;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.lance.FragmentMetadata;
import org.lance.fragment.DataFile;

/** The aggregator on Flink's operator test harness: one committable per checkpoint, or none. */
class CommitAggregatorTest {

  @Test
  void foldsAllWritersOfACheckpointIntoOneCommittableBeforeTheBarrier() throws Exception {
    try (OneInputStreamOperatorTestHarness<
            CommittableMessage<LanceWriteResult>, CommittableMessage<LanceCommittable>>
        harness = open(new CommitAggregator("user"), null)) {
      harness.processElement(summary(0, 2, 7, 1));
      harness.processElement(result(7, 0, fragment("a"), fragment("b")));
      harness.processElement(summary(1, 2, 7, 1));
      harness.processElement(result(7, 1, fragment("c")));
      assertThat(harness.extractOutputValues()).as("nothing before the barrier").isEmpty();

      harness.prepareSnapshotPreBarrier(7);

      List<CommittableMessage<LanceCommittable>> out = harness.extractOutputValues();
      assertThat(out).hasSize(2);
      CommittableSummary<LanceCommittable> summary =
          (CommittableSummary<LanceCommittable>) out.get(0);
      assertThat(summary.getCheckpointId()).isEqualTo(7);
      assertThat(summary.getNumberOfCommittables()).isEqualTo(1);
      assertThat(summary.getNumberOfSubtasks()).isEqualTo(1);
      LanceCommittable committable =
          ((CommittableWithLineage<LanceCommittable>) out.get(1)).getCommittable();
      assertThat(committable.commitUser()).isEqualTo("user");
      assertThat(committable.checkpointId()).isEqualTo(7);
      assertThat(committable.fragments())
          .extracting(f -> f.getFiles().get(0).getPath())
          .containsExactlyInAnyOrder("a", "b", "c");
    }
  }

  @Test
  void emptyCheckpointsEmitNothing() throws Exception {
    try (var harness = open(new CommitAggregator("user"), null)) {
      harness.processElement(summary(0, 1, 3, 0));
      harness.prepareSnapshotPreBarrier(3);
      assertThat(harness.extractOutputValues()).isEmpty();
    }
  }

  @Test
  void endOfInputEmitsWhatIsLeft() throws Exception {
    try (var harness = open(new CommitAggregator("user"), null)) {
      harness.processElement(result(4, 0, fragment("a")));
      harness.endInput();
      assertThat(harness.extractOutputValues())
          .filteredOn(m -> m instanceof CommittableWithLineage)
          .singleElement()
          .extracting(CommittableMessage::getCheckpointId)
          .isEqualTo(4L);
    }
  }

  @Test
  void generatedCommitUserSurvivesARestore() throws Exception {
    String created;
    OperatorSubtaskState state;
    try (var harness = open(new CommitAggregator(null), null)) {
      harness.processElement(result(1, 0, fragment("a")));
      harness.prepareSnapshotPreBarrier(1);
      created = committables(harness).get(0).commitUser();
      state = harness.snapshot(1, 1);
    }
    assertThat(created).hasSize(36);

    try (var restored = open(new CommitAggregator(null), state)) {
      restored.processElement(result(2, 0, fragment("b")));
      restored.prepareSnapshotPreBarrier(2);
      assertThat(committables(restored).get(0).commitUser()).isEqualTo(created);
    }
    try (var configured = open(new CommitAggregator("explicit"), state)) {
      configured.processElement(result(2, 0, fragment("b")));
      configured.prepareSnapshotPreBarrier(2);
      assertThat(committables(configured).get(0).commitUser()).isEqualTo("explicit");
    }
  }

  @Test
  void refusesToSnapshotWriteResultsItHasNotEmitted() throws Exception {
    try (var harness = open(new CommitAggregator("user"), null)) {
      harness.processElement(result(9, 0, fragment("late")));
      assertThatThrownBy(() -> harness.snapshot(8, 8))
          .hasStackTraceContaining("has write results of checkpoints [9] at checkpoint 8");
    }
  }

  private static OneInputStreamOperatorTestHarness<
          CommittableMessage<LanceWriteResult>, CommittableMessage<LanceCommittable>>
      open(CommitAggregator aggregator, OperatorSubtaskState state) throws Exception {
    var harness =
        new OneInputStreamOperatorTestHarness<
            CommittableMessage<LanceWriteResult>, CommittableMessage<LanceCommittable>>(aggregator);
    harness.initializeState(state);
    harness.open();
    return harness;
  }

  private static List<LanceCommittable> committables(
      OneInputStreamOperatorTestHarness<?, CommittableMessage<LanceCommittable>> harness) {
    return harness.extractOutputValues().stream()
        .filter(m -> m instanceof CommittableWithLineage)
        .map(m -> ((CommittableWithLineage<LanceCommittable>) m).getCommittable())
        .toList();
  }

  private static StreamRecord<CommittableMessage<LanceWriteResult>> summary(
      int subtask, int subtasks, long checkpoint, int committables) {
    return new StreamRecord<>(
        new CommittableSummary<>(subtask, subtasks, checkpoint, committables, 0));
  }

  private static StreamRecord<CommittableMessage<LanceWriteResult>> result(
      long checkpoint, int subtask, FragmentMetadata... fragments) {
    return new StreamRecord<>(
        new CommittableWithLineage<>(
            new LanceWriteResult(List.of(fragments)), checkpoint, subtask));
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
