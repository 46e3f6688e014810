package dev.flinklance.sink.aggregator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

import dev.flinklance.access.VersionMark;
import dev.flinklance.sink.LanceSink;
import dev.flinklance.sink.LanceSinkBuilder;
import dev.flinklance.sink.committer.LanceCommittable;
import dev.flinklance.sink.committer.LanceCommittableSerializer;
import dev.flinklance.sink.compat.Committables;
import dev.flinklance.sink.testing.CommittableOutput;
import dev.flinklance.sink.writer.LanceWriteResult;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.SerializerSnapshots;
import dev.flinklance.testing.TestFragments;
import dev.flinklance.testing.TestRows;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableSummary;
import org.apache.flink.streaming.api.connector.sink2.CommittableWithLineage;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.OperatorSnapshotUtil;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.FragmentMetadata;
import org.lance.fragment.DataFile;

/** The aggregator on Flink's operator test harness: one committable per checkpoint, or none. */
class CommitAggregatorTest {
  @TempDir Path dir;
  private String table;

  @BeforeEach
  void tablePath() {
    table = dir.resolve("t").toString();
  }

  @Test
  void foldsAllWritersOfACheckpointIntoOneCommittableBeforeTheBarrier() throws Exception {
    try (OneInputStreamOperatorTestHarness<
            CommittableMessage<LanceWriteResult>, CommittableMessage<LanceCommittable>>
        harness = open(aggregator("user"), null)) {
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
      assertThat(Committables.checkpointId(summary)).isEqualTo(7);
      assertThat(summary.getNumberOfCommittables()).isEqualTo(1);
      assertThat(summary.getNumberOfSubtasks()).isEqualTo(1);
      LanceCommittable committable =
          ((CommittableWithLineage<LanceCommittable>) out.get(1)).getCommittable();
      assertThat(committable.stamp().commitUser()).isEqualTo("user");
      assertThat(committable.checkpointId()).isEqualTo(7);
      assertThat(committable.fragments())
          .extracting(f -> f.getFiles().get(0).getPath())
          .containsExactlyInAnyOrder("a", "b", "c");
    }
  }

  @Test
  void emptyCheckpointsEmitNothing() throws Exception {
    try (var harness = open(aggregator("user"), null)) {
      harness.processElement(summary(0, 1, 3, 0));
      harness.prepareSnapshotPreBarrier(3);
      assertThat(harness.extractOutputValues()).isEmpty();
    }
  }

  @Test
  void endOfInputEmitsWhatIsLeft() throws Exception {
    try (var harness = open(aggregator("user"), null)) {
      harness.processElement(result(4, 0, fragment("a")));
      harness.endInput();
      assertThat(harness.extractOutputValues())
          .filteredOn(m -> m instanceof CommittableWithLineage)
          .singleElement()
          .extracting(Committables::checkpointId)
          .isEqualTo(4L);
    }
  }

  /**
   * The aggregator's own state (its commit user, through Flink's String serializer) as this
   * connector on Flink 2.2 stored it: a later build restores the user. The file was written once
   * with {@code -Dserializer.snapshots.write=true}; it is never rewritten.
   */
  @Test
  void restoresTheCommitUserOfItsStoredState() throws Exception {
    Path stored = Path.of("src/test/resources/operator-snapshots/commit-aggregator-flink-2.2");
    if (Boolean.getBoolean(SerializerSnapshots.WRITE_PROPERTY) && !Files.exists(stored)) {
      Files.createDirectories(stored.getParent());
      try (var harness = open(aggregator("commit-user-ü"), null)) {
        OperatorSnapshotUtil.writeStateHandle(harness.snapshot(1, 1), stored.toString());
      }
    }

    try (var restored =
        open(aggregator(null), OperatorSnapshotUtil.readStateHandle(stored.toString()))) {
      restored.processElement(result(2, 0, fragment("b")));
      restored.prepareSnapshotPreBarrier(2);
      assertThat(committables(restored).get(0).stamp().commitUser()).isEqualTo("commit-user-ü");
    }
  }

  @Test
  void generatedCommitUserSurvivesARestore() throws Exception {
    String created;
    OperatorSubtaskState state;
    try (var harness = open(aggregator(null), null)) {
      harness.processElement(result(1, 0, fragment("a")));
      harness.prepareSnapshotPreBarrier(1);
      created = committables(harness).get(0).stamp().commitUser();
      state = harness.snapshot(1, 1);
    }
    assertThat(created).hasSize(36);

    try (var restored = open(aggregator(null), state)) {
      restored.processElement(result(2, 0, fragment("b")));
      restored.prepareSnapshotPreBarrier(2);
      assertThat(committables(restored).get(0).stamp().commitUser()).isEqualTo(created);
    }
    try (var configured = open(aggregator("explicit"), state)) {
      configured.processElement(result(2, 0, fragment("b")));
      configured.prepareSnapshotPreBarrier(2);
      assertThat(committables(configured).get(0).stamp().commitUser()).isEqualTo("explicit");
    }
  }

  /** AT_LEAST_ONCE: a fast writer's results of checkpoint 9 arrive before barrier 8. */
  @Test
  void resultsOfLaterCheckpointsWaitForTheirOwnBarrier() throws Exception {
    try (var harness = open(aggregator("user"), null)) {
      harness.processElement(result(9, 0, fragment("early")));
      harness.prepareSnapshotPreBarrier(8);
      harness.snapshot(8, 8);
      assertThat(harness.extractOutputValues()).isEmpty();

      harness.prepareSnapshotPreBarrier(9);
      assertThat(committables(harness))
          .extracting(LanceCommittable::checkpointId)
          .containsExactly(9L);
    }
  }

  @Test
  void everyStartIsANewRunNumberingItsCommittablesFromOne() throws Exception {
    TestFragments.createTable(table);
    OperatorSubtaskState state;
    String firstRun;
    try (var harness = open(aggregator("user"), null)) {
      harness.processElement(result(1, 0, fragment("a")));
      harness.prepareSnapshotPreBarrier(1);
      harness.processElement(result(2, 0, fragment("b")));
      harness.prepareSnapshotPreBarrier(2);
      List<LanceCommittable> out = committables(harness);
      assertThat(out).extracting(c -> c.stamp().runSeq()).containsExactly(1L, 2L);
      assertThat(out)
          .extracting(c -> c.stamp().run())
          .doesNotContainNull()
          .containsOnly(out.get(0).stamp().run());
      assertThat(out).extracting(c -> c.runStart().version()).containsOnly(1L);
      firstRun = out.get(0).stamp().run();
      state = harness.snapshot(2, 2);
    }
    try (var restored = open(aggregator("user"), state)) {
      restored.processElement(result(3, 0, fragment("c")));
      restored.prepareSnapshotPreBarrier(3);
      LanceCommittable next = committables(restored).get(0);
      assertThat(next.stamp().run()).isNotEqualTo(firstRun);
      assertThat(next.stamp().runSeq()).isEqualTo(1);
    }
  }

  /**
   * Issue 28: a run that started before its writers created the table names that table in its
   * committables, so that none lands on a table recreated at the URI ("no table yet" matches any).
   */
  @Test
  void aRunThatFoundNoTableNamesTheTableItsWritersCreated() throws Exception {
    try (var harness = open(aggregator("user"), null)) {
      harness.processElement(result(1, 0));
      harness.prepareSnapshotPreBarrier(1);
      TestFragments.createTable(table); // by a writer
      harness.processElement(result(2, 0, fragment("a")));
      harness.prepareSnapshotPreBarrier(2);
      LanceTestTables.appendFragments(table, TestFragments.write(table, 1));
      harness.processElement(result(3, 0, fragment("b")));
      harness.prepareSnapshotPreBarrier(3);

      assertThat(committables(harness))
          .extracting(LanceCommittable::runStart)
          .extracting(VersionMark::version, mark -> mark.epochNanos() / 1_000_000)
          .containsExactly(
              tuple(1L, LanceTestTables.commitMillis(table, 1)),
              tuple(1L, LanceTestTables.commitMillis(table, 1)));
    }
  }

  @Test
  void overwriteIsOneCommittableAtTheEndOfInputEvenWithoutRows() throws Exception {
    try (var harness = open(overwritingAggregator(), null)) {
      harness.processElement(summary(0, 2, 1, 1));
      harness.processElement(result(1, 0, fragment("a")));
      harness.processElement(summary(1, 2, 1, 1));
      harness.processElement(result(1, 1, fragment("b")));
      harness.endInput();
      LanceCommittable committable = committables(harness).get(0);
      assertThat(committable.overwrite()).isTrue();
      assertThat(committable.fragments()).hasSize(2);
      assertThat(committables(harness)).hasSize(1);
    }
    try (var empty = open(overwritingAggregator(), null)) {
      empty.processElement(summary(0, 1, 1, 0));
      empty.endInput();
      assertThat(committables(empty))
          .singleElement()
          .satisfies(c -> assertThat(c.fragments()).isEmpty())
          .satisfies(c -> assertThat(c.overwrite()).isTrue());
    }
  }

  @Test
  void overwriteRefusesRowsBeforeTheEndOfInput() throws Exception {
    try (var harness = open(overwritingAggregator(), null)) {
      harness.processElement(result(1, 0, fragment("a")));
      assertThatThrownBy(() -> harness.prepareSnapshotPreBarrier(1))
          .hasMessageContaining("overwrite needs BATCH execution");
    }
  }

  private CommitAggregator aggregator(String commitUser) {
    LanceSinkBuilder<?> builder = LanceSink.forRowData(TestRows.ROW_TYPE).path(table);
    if (commitUser != null) {
      builder.commitUser(commitUser);
    }
    return new CommitAggregator(builder.build().config());
  }

  private CommitAggregator overwritingAggregator() {
    return new CommitAggregator(
        LanceSink.forRowData(TestRows.ROW_TYPE).path(table).overwrite(true).build().config());
  }

  private static OneInputStreamOperatorTestHarness<
          CommittableMessage<LanceWriteResult>, CommittableMessage<LanceCommittable>>
      open(CommitAggregator aggregator, OperatorSubtaskState state) throws Exception {
    var harness =
        new OneInputStreamOperatorTestHarness<
            CommittableMessage<LanceWriteResult>, CommittableMessage<LanceCommittable>>(aggregator);
    CommittableOutput.setUp(harness, LanceCommittableSerializer::new);
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
    return new StreamRecord<>(Committables.summary(subtask, subtasks, checkpoint, committables));
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
