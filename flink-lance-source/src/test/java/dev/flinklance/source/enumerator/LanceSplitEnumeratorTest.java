package dev.flinklance.source.enumerator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.access.TableRef;
import dev.flinklance.consumer.ConsumerRegistration;
import dev.flinklance.consumer.Consumers;
import dev.flinklance.errors.PermanentDatasetException;
import dev.flinklance.files.TableFiles;
import dev.flinklance.source.LanceScan;
import dev.flinklance.source.LanceSourceBuilder;
import dev.flinklance.source.SourceScans;
import dev.flinklance.source.split.LanceSplit;
import dev.flinklance.source.split.SplitKind;
import dev.flinklance.source.testing.SourceTable;
import dev.flinklance.testing.LanceTestTables;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;
import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.api.connector.source.mocks.MockSplitEnumeratorContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The enumerator on Flink's {@link MockSplitEnumeratorContext}, on real tables: the test plays the
 * readers (their requests and events) and runs the discoveries the enumerator schedules, one at a
 * time. One split goes out per request; a version's splits only once every split of the versions
 * before has been read; a changelog read hands every split to one reader; after a restore nothing
 * goes out until every reader said what it holds; a read that cannot go on fails only once every
 * split planned before the failure has been read.
 */
class LanceSplitEnumeratorTest {
  @TempDir Path dir;
  private SourceTable table;
  private MockSplitEnumeratorContext<LanceSplit> context;

  /** Version 1: the empty table. */
  @BeforeEach
  void createTable() {
    table = SourceTable.create(dir.resolve("t"), false);
  }

  @AfterEach
  void closeContext() throws Exception {
    if (context != null) {
      context.close();
    }
  }

  @Test
  void aBoundedReadHandsOutOneSplitPerRequestThenNoMoreSplits() throws Throwable {
    table.append(0, 30, 10); // version 2: fragments 0, 1, 2
    LanceScan scan = scan(table.source());
    List<LanceSplit> splits = SplitPlanner.plan(scan);
    assertThat(splits)
        .containsExactly(
            table.split(SplitKind.SNAPSHOT, 0, 2),
            table.split(SplitKind.SNAPSHOT, 1, 2),
            table.split(SplitKind.SNAPSHOT, 2, 2));
    LanceSplitEnumerator enumerator = LanceSplitEnumerator.bounded(readers(2), scan, splits);
    enumerator.start();
    assertThat(context.getPeriodicCallables()).as("a bounded read discovers nothing").isEmpty();

    enumerator.handleSplitRequest(0, "host");
    enumerator.handleSplitRequest(1, "host");
    enumerator.handleSplitRequest(0, "host"); // no Finished needed within one version
    assertThat(assignments())
        .containsExactly(to(0, splits.get(0)), to(1, splits.get(1)), to(0, splits.get(2)));

    enumerator.handleSplitRequest(1, "host");
    assertThat(context.hasNoMoreSplits(1)).isTrue();
    assertThat(context.hasNoMoreSplits(0)).as("still reading").isFalse();
    enumerator.handleSplitRequest(0, "host");
    assertThat(context.hasNoMoreSplits(0)).isTrue();
    assertThat(assignments()).hasSize(3);
    assertThat(enumerator.snapshotState(1)).isEqualTo(new LanceEnumeratorState(List.of(), null));
  }

  /** A request of a reader that failed since it asked is dropped: it asks again when back. */
  @Test
  void aRequestOfAReaderThatIsGoneIsDropped() {
    table.append(0, 20, 10);
    LanceScan scan = scan(table.source());
    LanceSplitEnumerator enumerator =
        LanceSplitEnumerator.bounded(readers(2), scan, SplitPlanner.plan(scan));
    context.unregisterReader(1);
    enumerator.handleSplitRequest(1, "host");
    enumerator.handleSplitRequest(0, "host");
    assertThat(assignments()).containsExactly(to(0, table.split(SplitKind.SNAPSHOT, 0, 2)));
  }

  /**
   * Versions 2 and 3 come in one discovery: reader 0 asks again as soon as it has read its split of
   * version 2, but gets version 3's only once reader 1 has read the other split of version 2.
   */
  @Test
  void aVersionsSplitsGoOutOnlyOnceEveryEarlierSplitIsRead() throws Throwable {
    table.append(0, 20, 10); // version 2: fragments 0, 1
    table.append(20, 30, 10); // version 3: fragment 2
    LanceSplitEnumerator enumerator = streaming(readers(2), afterVersion1());
    enumerator.handleSplitRequest(0, "host");
    enumerator.handleSplitRequest(1, "host");

    context.runPeriodicCallable(0); // the start position: after version 1, nothing to read
    assertThat(assignments()).isEmpty();
    context.runNextOneTimeCallable(); // not caught up: versions 2 and 3 at once
    LanceSplit v2f0 = table.added(0, 2);
    LanceSplit v2f1 = table.added(1, 2);
    LanceSplit v3f2 = table.added(2, 3);
    assertThat(assignments()).containsExactly(to(0, v2f0), to(1, v2f1));

    finishedAndAsks(enumerator, 0, v2f0);
    assertThat(assignments()).as("version 2 is still being read").hasSize(2);
    finishedAndAsks(enumerator, 1, v2f1);
    assertThat(assignments()).containsExactly(to(0, v2f0), to(1, v2f1), to(0, v3f2));
    assertThat(context.getOneTimeCallables()).as("caught up").isEmpty();
    assertThat(context.hasNoMoreSplits(1)).as("a streaming read goes on").isFalse();
  }

  /**
   * A changelog read hands every split to reader 0, the removed rows of a version before its added
   * rows; reader 1's requests go unanswered for good.
   */
  @Test
  void aChangelogReadHandsEverySplitToOneReader() throws Throwable {
    table.append(0, 20, 10); // version 2: fragments 0, 1
    table.upsert(Map.of(5L, "new-5")); // 3: a row of fragment 0, fragment 2
    LanceSplitEnumerator enumerator = streaming(readers(2), afterVersion1().changelog(true));
    enumerator.handleSplitRequest(1, "host");
    enumerator.handleSplitRequest(0, "host");
    context.runPeriodicCallable(0);
    context.runNextOneTimeCallable();

    List<LanceSplit> read = new ArrayList<>();
    while (read.size() < assignments().size()) {
      assertThat(assignments().get(read.size())).containsOnlyKeys(0);
      LanceSplit split = assignments().get(read.size()).get(0).get(0);
      read.add(split);
      finishedAndAsks(enumerator, 0, split);
      enumerator.handleSplitRequest(1, "host");
    }
    assertThat(read)
        .containsExactly(
            table.added(0, 2),
            table.added(1, 2),
            table.split(SplitKind.DELETED_ROWS, 0, 3),
            table.added(2, 3));
  }

  /**
   * After a restore nothing goes out until every reader said which splits it holds: a split of
   * version 2 that reader 1 holds, half read, keeps version 3 back until it is read.
   */
  @Test
  void afterARestoreNothingGoesOutUntilEveryReaderSaidWhatItHolds() throws Throwable {
    table.append(0, 20, 10); // version 2: fragments 0, 1
    table.append(20, 30, 10); // version 3: fragment 2
    LanceEnumeratorState state = stateWithTheFirstSplitInFlight(afterVersion1());

    LanceSplitEnumerator restored =
        LanceSplitEnumerator.restore(readers(2), scan(afterVersion1()), roundTrip(state));
    restored.start();
    startsHolding(restored, 0, List.of());
    assertThat(assignments()).as("reader 1 has not said what it holds").isEmpty();

    LanceSplit halfRead = table.added(0, 2).withRowsEmitted(4);
    startsHolding(restored, 1, List.of(halfRead));
    assertThat(assignments()).containsExactly(to(0, table.added(1, 2)));
    finishedAndAsks(restored, 0, table.added(1, 2));
    assertThat(assignments()).as("reader 1 still reads version 2").hasSize(1);
    finishedAndAsks(restored, 1, halfRead);
    assertThat(assignments()).containsExactly(to(0, table.added(1, 2)), to(0, table.added(2, 3)));
  }

  /** A restored changelog read goes on with the reader that holds its split, for every split. */
  @Test
  void aRestoredChangelogReadGoesOnWithTheReaderThatHoldsItsSplit() throws Throwable {
    table.append(0, 20, 10);
    table.append(20, 30, 10);
    LanceSourceBuilder source = afterVersion1().changelog(true);
    LanceEnumeratorState state = stateWithTheFirstSplitInFlight(source);

    LanceSplitEnumerator restored =
        LanceSplitEnumerator.restore(readers(2), scan(source), roundTrip(state));
    restored.start();
    startsHolding(restored, 0, List.of());
    LanceSplit halfRead = table.added(0, 2).withRowsEmitted(4);
    startsHolding(restored, 1, List.of(halfRead));
    assertThat(assignments()).isEmpty();
    finishedAndAsks(restored, 1, halfRead);
    finishedAndAsks(restored, 1, table.added(1, 2));
    assertThat(assignments()).containsExactly(to(1, table.added(1, 2)), to(1, table.added(2, 3)));
  }

  /**
   * A read registered as a consumer registers its start, then at each completed checkpoint the
   * oldest version it needed when that checkpoint was taken (what a failover restores), not the
   * newer one it reads by then; a checkpoint that does not complete registers nothing.
   */
  @Test
  void aConsumerRegistersWhatTheLastCompletedCheckpointRestores() throws Throwable {
    table.append(0, 20, 10); // version 2: fragments 0, 1
    table.append(20, 30, 10); // version 3: fragment 2
    LanceSplitEnumerator enumerator = streaming(readers(1), afterVersion1().consumerId("c"));
    enumeratorReadsUpToTheLatestVersion(enumerator);
    assertThat(registeredVersion()).as("its start: the changes after version 1").isEqualTo(1);

    enumeratorHandsOut(enumerator, 0); // version 2, fragment 0
    enumerator.snapshotState(1);
    finishedAndAsks(enumerator, 0, table.added(0, 2));
    enumerator.snapshotState(2); // never completes
    finishedAndAsks(enumerator, 0, table.added(1, 2)); // version 3 goes out
    runWrites();
    assertThat(registeredVersion()).as("no checkpoint completed").isEqualTo(1);

    enumerator.notifyCheckpointComplete(1);
    runWrites();
    assertThat(registeredVersion()).as("checkpoint 1 restores version 2's splits").isEqualTo(2);

    enumerator.snapshotState(3);
    enumerator.notifyCheckpointComplete(3);
    runWrites();
    assertThat(registeredVersion()).as("version 3's split is read").isEqualTo(3);
  }

  /**
   * A changelog read pairs the rows a version added with the version before (into updates): a
   * checkpoint taken while a split of version 3 is being read restores a read that opens version 2,
   * so that is what it registers; once the split is read, version 3.
   */
  @Test
  void aChangelogConsumerRegistersTheVersionBeforeTheSplitItReads() throws Throwable {
    table.append(0, 10, 10); // version 2: fragment 0
    table.append(10, 20, 10); // version 3: fragment 1
    LanceSplitEnumerator enumerator =
        streaming(readers(1), afterVersion1().changelog(true).consumerId("c"));
    enumeratorReadsUpToTheLatestVersion(enumerator);
    enumeratorHandsOut(enumerator, 0); // version 2, fragment 0
    finishedAndAsks(enumerator, 0, table.added(0, 2)); // version 3 goes out
    assertThat(assignments()).last().isEqualTo(to(0, table.added(1, 3)));

    enumerator.snapshotState(1);
    enumerator.notifyCheckpointComplete(1);
    runWrites();
    assertThat(registeredVersion()).as("version 3's split reads version 2 too").isEqualTo(2);

    finishedAndAsks(enumerator, 0, table.added(1, 3));
    enumerator.snapshotState(2);
    enumerator.notifyCheckpointComplete(2);
    runWrites();
    assertThat(registeredVersion()).as("every split read").isEqualTo(3);
  }

  /**
   * A restored read registers what it restores to (its registration may have expired while it was
   * down, and been deleted), once every reader said what it holds: a split of version 2 half read.
   */
  @Test
  void aRestoredConsumerRegistersWhatItRestoresToOnceEveryReaderSaidWhatItHolds() throws Throwable {
    table.append(0, 20, 10); // version 2: fragments 0, 1
    table.append(20, 30, 10); // version 3: fragment 2
    table.append(30, 40, 10); // version 4: fragment 3
    LanceSourceBuilder source = afterVersion1().consumerId("c");
    LanceSplitEnumerator enumerator = streaming(readers(2), source);
    enumeratorReadsUpToTheLatestVersion(enumerator);
    enumeratorHandsOut(enumerator, 0); // version 2, fragment 0
    enumeratorHandsOut(enumerator, 1); // version 2, fragment 1
    finishedAndAsks(enumerator, 1, table.added(1, 2)); // version 3 waits for fragment 0
    LanceEnumeratorState state = enumerator.snapshotState(1);
    context.close();
    try (TableFiles files = files()) {
      files.delete(Consumers.fileOf("c"));
    }

    LanceSplitEnumerator restored =
        LanceSplitEnumerator.restore(readers(2), scan(source), roundTrip(state));
    restored.start();
    startsHolding(restored, 1, List.of());
    restored.snapshotState(2);
    restored.notifyCheckpointComplete(2);
    runWrites();
    assertThat(registration()).as("reader 0 has not said what it holds").isEmpty();

    startsHolding(restored, 0, List.of(table.added(0, 2).withRowsEmitted(4)));
    runWrites();
    assertThat(registeredVersion()).isEqualTo(2);
  }

  private void runWrites() throws Throwable {
    while (!context.getOneTimeCallables().isEmpty()) {
      context.runNextOneTimeCallable();
    }
  }

  private TableFiles files() {
    return TableFiles.of(new TableRef(table.uri(), Map.of())).orElseThrow();
  }

  private Optional<ConsumerRegistration> registration() throws IOException {
    try (TableFiles files = files()) {
      return new Consumers(files).read("c");
    }
  }

  private long registeredVersion() throws IOException {
    return registration().orElseThrow().version();
  }

  /**
   * Every version planned, the first split handed to reader 0: the pending splits and the version
   * planned are the state.
   */
  private LanceEnumeratorState stateWithTheFirstSplitInFlight(LanceSourceBuilder source)
      throws Throwable {
    LanceSplitEnumerator enumerator = streaming(readers(2), source);
    enumeratorReadsUpToTheLatestVersion(enumerator);
    enumeratorHandsOut(enumerator, 0);
    assertThat(assignments()).containsExactly(to(0, table.added(0, 2)));
    LanceEnumeratorState state = enumerator.snapshotState(1);
    assertThat(state)
        .isEqualTo(
            new LanceEnumeratorState(List.of(table.added(1, 2), table.added(2, 3)), table.mark(3)));
    context.close();
    return state;
  }

  /** What a reader does when it starts: says what it holds, and asks if it holds nothing. */
  private static void startsHolding(
      LanceSplitEnumerator enumerator, int reader, List<LanceSplit> splits) {
    enumerator.handleSourceEvent(reader, new ReaderEvents.Holding(splits));
    if (splits.isEmpty()) {
      enumerator.handleSplitRequest(reader, "host");
    }
  }

  /** A failed reader's splits are read again, with the progress of its last checkpoint. */
  @Test
  void theSplitsOfAFailedReaderGoOutAgain() throws Throwable {
    table.append(0, 20, 10);
    table.append(20, 30, 10);
    LanceSplitEnumerator enumerator = streaming(readers(2), afterVersion1());
    enumeratorReadsUpToTheLatestVersion(enumerator);
    enumeratorHandsOut(enumerator, 0);
    enumeratorHandsOut(enumerator, 1);
    finishedAndAsks(enumerator, 0, table.added(0, 2));
    assertThat(assignments()).as("reader 1 reads version 2").hasSize(2);

    context.unregisterReader(1);
    enumerator.addSplitsBack(List.of(table.added(1, 2).withRowsEmitted(3)), 1);
    assertThat(assignments()).last().isEqualTo(to(0, table.added(1, 2).withRowsEmitted(3)));
    finishedAndAsks(enumerator, 0, table.added(1, 2));
    assertThat(assignments()).last().isEqualTo(to(0, table.added(2, 3)));
  }

  /**
   * Issue 28: versions 2 and 3 are planned, version 4 deletes rows, which an append-only read with
   * {@code scan.on-delete} = {@code fail} stops at. The failure comes only once every split of
   * versions 2 and 3 has been read, so that a job started again after version 4 loses no row; no
   * discovery runs after it.
   */
  @Test
  void aFailureOfTheReadWaitsUntilEverySplitPlannedBeforeIsRead() throws Throwable {
    table.append(0, 20, 10); // version 2: fragments 0, 1
    table.append(20, 30, 10); // 3: fragment 2
    table.delete("id = 1"); // 4
    LanceSplitEnumerator enumerator = streaming(readers(2), afterVersion1());
    enumerator.handleSplitRequest(0, "host");
    enumerator.handleSplitRequest(1, "host");
    context.runPeriodicCallable(0);
    context.runNextOneTimeCallable(); // versions 2 and 3; version 4 cannot be planned
    context.runNextOneTimeCallable(); // version 4 fails the next call at once
    assertThat(context.getOneTimeCallables()).isEmpty();

    finishedAndAsks(enumerator, 0, table.added(0, 2));
    finishedAndAsks(enumerator, 1, table.added(1, 2));
    assertThat(assignments()).last().isEqualTo(to(0, table.added(2, 3)));
    context.runPeriodicCallable(0);
    assertThat(assignments()).as("no discovery after the failure").hasSize(3);

    assertThatThrownBy(() -> finishedAndAsks(enumerator, 0, table.added(2, 3)))
        .isInstanceOf(PermanentDatasetException.class)
        .hasMessageContaining(table.uri())
        .hasMessageContaining(
            "version 4 (Delete) deletes or updates rows, which an append-only streaming read"
                + " ('scan.changelog' = 'false') cannot emit; with 'scan.on-delete' = 'fail' it"
                + " stops here, having emitted every change up to version 3.");
  }

  /** A failure met when nothing is left to read fails at once. */
  @Test
  void aFailureWithNothingLeftToReadFailsAtOnce() throws Throwable {
    table.append(0, 10, 10); // version 2
    LanceSplitEnumerator enumerator =
        streaming(readers(1), table.source().streaming().startFromLatest());
    context.runPeriodicCallable(0);
    table.delete("id = 1"); // 3
    assertThatThrownBy(() -> context.runPeriodicCallable(0))
        .isInstanceOf(PermanentDatasetException.class)
        .hasMessageContaining("version 3 (Delete) deletes or updates rows");
    assertThat(enumerator.snapshotState(2).planned()).isEqualTo(table.mark(2));
  }

  private LanceSourceBuilder afterVersion1() {
    return table.source().streaming().startAfterVersion(1).discoveryInterval(Duration.ofSeconds(1));
  }

  private static LanceScan scan(LanceSourceBuilder builder) {
    return SourceScans.of(builder);
  }

  private LanceSplitEnumerator streaming(
      MockSplitEnumeratorContext<LanceSplit> readers, LanceSourceBuilder source) {
    LanceSplitEnumerator enumerator = LanceSplitEnumerator.streaming(readers, scan(source));
    enumerator.start();
    assertThat(context.getPeriodicCallables()).as("discoveries scheduled").hasSize(1);
    return enumerator;
  }

  /** Runs the discoveries until the enumerator has planned the latest version. */
  private void enumeratorReadsUpToTheLatestVersion(LanceSplitEnumerator enumerator)
      throws Throwable {
    context.runPeriodicCallable(0);
    while (!context.getOneTimeCallables().isEmpty()) {
      context.runNextOneTimeCallable();
    }
    assertThat(enumerator.snapshotState(0).planned())
        .isEqualTo(table.mark(LanceTestTables.latestVersion(table.uri())));
  }

  private void enumeratorHandsOut(LanceSplitEnumerator enumerator, int reader) {
    int before = assignments().size();
    enumerator.handleSplitRequest(reader, "host");
    assertThat(assignments()).hasSize(before + 1);
  }

  /** What a reader does when it has read a split to its end: says so, and asks for the next. */
  private static void finishedAndAsks(
      LanceSplitEnumerator enumerator, int reader, LanceSplit split) {
    enumerator.handleSourceEvent(reader, new ReaderEvents.Finished(List.of(split.splitId())));
    enumerator.handleSplitRequest(reader, "host");
  }

  private MockSplitEnumeratorContext<LanceSplit> readers(int parallelism) {
    context = new MockSplitEnumeratorContext<>(parallelism);
    IntStream.range(0, parallelism)
        .forEach(reader -> context.registerReader(new ReaderInfo(reader, "host")));
    return context;
  }

  /** The assignments so far, in order, each of reader to splits. */
  private List<Map<Integer, List<LanceSplit>>> assignments() {
    return context.getSplitsAssignmentSequence().stream()
        .map(SplitsAssignment::assignment)
        .toList();
  }

  private static Map<Integer, List<LanceSplit>> to(int reader, LanceSplit split) {
    return Map.of(reader, List.of(split));
  }

  private static LanceEnumeratorState roundTrip(LanceEnumeratorState state) throws Exception {
    LanceEnumeratorStateSerializer serializer = new LanceEnumeratorStateSerializer();
    return serializer.deserialize(serializer.getVersion(), serializer.serialize(state));
  }
}
