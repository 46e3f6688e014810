package dev.flinklance.compactor.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.flinklance.access.TableLoader;
import dev.flinklance.compactor.CompactionConfig;
import dev.flinklance.compactor.commit.CompactionSummary;
import dev.flinklance.compactor.commit.CompactionSummary.Outcome;
import dev.flinklance.compactor.plan.PlanRef;
import dev.flinklance.compactor.plan.RewriteTask;
import dev.flinklance.compactor.rewrite.OutcomeFiles;
import dev.flinklance.compactor.rewrite.RewriteOutcome;
import dev.flinklance.compactor.testing.LineageTables;
import dev.flinklance.index.KeyIndex;
import dev.flinklance.index.ScalarIndex;
import dev.flinklance.key.PrimaryKey;
import dev.flinklance.testing.Await;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.LanceTestTables.Commit;
import dev.flinklance.testing.LogCapture;
import dev.flinklance.testing.OperatorMail;
import dev.flinklance.testing.TestRows;
import dev.flinklance.testing.TestTables;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.ToIntFunction;
import java.util.function.UnaryOperator;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer;
import org.apache.flink.core.io.SimpleVersionedSerialization;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;

/**
 * The compaction committer on Flink's operator test harness, on real stable-row-id tables: it
 * collects a plan's outcomes, commits once the last one arrived, keeps the outcomes in its state
 * until then (a restore commits them, or finds them committed already), and reports what it could
 * not commit as a summary instead of failing the job. Its Lance calls run in the background; each
 * result is run from the harness's mailbox by the test.
 */
class CompactionCommitterTest {
  @TempDir Path dir;
  private String table;
  private CompactionConfig config;

  @BeforeEach
  void twoRunsOfSmallFragments() {
    table = dir.resolve("t").toString();
    config = Plans.twoRunsOfSmallFragments(table);
  }

  @Test
  void commitsAPlanOnceWhenItsLastOutcomeArrives() throws Exception {
    List<RewriteOutcome> outcomes = Plans.rewrite(config, Plans.plan(config));
    assertThat(outcomes).hasSize(2);
    Map<Long, List<Object>> before = LineageTables.rowsByRowId(table);
    long version = LanceTestTables.latestVersion(table);

    try (var committer = committer(config, null)) {
      process(committer, outcomes.get(0));
      assertThat(pending(committer, 1)).containsExactly(name(outcomes.get(0)));
      process(committer, outcomes.get(1));
      OperatorMail.runNext(committer, "the commit");

      CompactionSummary summary = onlySummary(committer);
      assertThat(summary.outcome()).isEqualTo(Outcome.COMMITTED);
      assertThat(summary.planId()).isEqualTo(outcomes.get(0).plan().planId());
      assertThat(summary.version()).isEqualTo(LanceTestTables.latestVersion(table));
      assertThat(summary.fragmentsBefore()).isEqualTo(5);
      assertThat(summary.fragmentsAfter()).isEqualTo(3);
      assertThat(summary.fragmentsRewritten()).isEqualTo(4);
      assertThat(summary.fragmentsWritten()).isEqualTo(2);
      assertThat(summary.rowsRewritten()).isEqualTo(200);
      assertThat(summary.tasksFailed()).isZero();
      assertThat(summary.groupsPreempted()).isZero();
      assertThat(summary.failure()).isNull();
      assertThat(pending(committer, 2)).isEmpty();
    }
    assertThat(LanceTestTables.commits(table))
        .filteredOn(commit -> commit.version() > version)
        .extracting(Commit::operation)
        .as("one commit of the rewrites (Lance reserves their fragment ids first)")
        .containsExactly("ReserveFragments", "Rewrite");
    assertThat(LanceTestTables.fragmentCount(table)).isEqualTo(3);
    assertThat(LineageTables.rowsByRowId(table)).isEqualTo(before);
  }

  @Test
  void outcomesRestoredFromASnapshotAreCommittedWhenTheLastOneArrives() throws Exception {
    List<RewriteOutcome> outcomes = Plans.rewrite(config, Plans.plan(config));
    Map<Long, List<Object>> before = LineageTables.rowsByRowId(table);
    OperatorSubtaskState snapshot;
    try (var committer = committer(config, null)) {
      process(committer, outcomes.get(0));
      snapshot = committer.snapshot(1, 1);
    }

    try (var restored = committer(config, snapshot)) {
      assertThat(pending(restored, 2)).containsExactly(name(outcomes.get(0)));
      process(restored, outcomes.get(1));
      OperatorMail.runNext(restored, "the commit");

      assertThat(onlySummary(restored).outcome()).isEqualTo(Outcome.COMMITTED);
      assertThat(onlySummary(restored).fragmentsRewritten()).isEqualTo(4);
    }
    assertThat(LanceTestTables.fragmentCount(table)).isEqualTo(3);
    assertThat(LineageTables.rowsByRowId(table)).isEqualTo(before);
  }

  /**
   * The 60-minute soak: a plan of a few hundred small fragments of a stable-row-id table made
   * rewrite outcomes larger than Flink's in-memory checkpoint storage takes. A large rewrite waits
   * in the committer's state as the name of its outcome file, which a restore reads; the file is
   * deleted once a checkpoint taken after the commit has completed.
   */
  @Test
  void aLargeRewriteWaitsInTheStateAsTheNameOfItsFile() throws Exception {
    String big = dir.resolve("big").toString();
    CompactionConfig bigConfig = twoRunsOfManySmallFragments(big);
    List<RewriteOutcome> inline = Plans.rewrite(bigConfig, Plans.plan(bigConfig));
    assertThat(inline).hasSize(2);
    Map<Long, List<Object>> before = LineageTables.rowsByRowId(big);
    List<RewriteOutcome> held = new ArrayList<>();
    try (OutcomeFiles files = new OutcomeFiles(bigConfig.dataset())) {
      inline.forEach(outcome -> held.add(files.hold(outcome)));
    }
    for (RewriteOutcome outcome : held) {
      assertThat(outcome.result()).isNull();
      assertThat(outcome.resultFile()).startsWith("_compaction/").endsWith(".rewrite");
      assertThat(Path.of(big, outcome.resultFile())).exists();
    }

    OperatorSubtaskState snapshot;
    try (var committer = committer(bigConfig, null)) {
      process(committer, held.get(0));
      snapshot = committer.snapshot(1, 1);
      assertThat(stateBytes(committer, 2))
          .as(
              "the state holds a name, the rewrite itself takes %d bytes",
              serialized(inline.get(0)))
          .isLessThan(1_000)
          .isLessThan(serialized(inline.get(0)) / 20);
    }

    try (var restored = committer(bigConfig, snapshot)) {
      process(restored, held.get(1));
      OperatorMail.runNext(restored, "the commit");
      CompactionSummary summary = onlySummary(restored);
      assertThat(summary.outcome()).isEqualTo(Outcome.COMMITTED);
      assertThat(summary.fragmentsRewritten()).isEqualTo(400);
      assertThat(summary.tasksFailed()).isZero();
      assertThat(Path.of(big, held.get(0).resultFile()))
          .as("kept until a checkpoint without it completes")
          .exists();

      restored.snapshot(3, 3);
      restored.notifyOfCompletedCheckpoint(3);
      OperatorMail.runNext(restored, "the deletion");
    }
    assertThat(LanceTestTables.fragmentCount(big)).isEqualTo(3);
    assertThat(LineageTables.rowsByRowId(big)).isEqualTo(before);
    for (RewriteOutcome outcome : held) {
      assertThat(Path.of(big, outcome.resultFile())).doesNotExist();
    }
  }

  /**
   * The first commit removes outcome files a day old that no restore will read, and only those: not
   * a younger one, nor a file of another name in that directory.
   */
  @Test
  void theFirstCommitRemovesOnlyOldOutcomeFiles() throws Exception {
    Path directory = Files.createDirectories(Path.of(table, "_compaction"));
    Path old = Files.writeString(directory.resolve(UUID.randomUUID() + ".rewrite"), "lost");
    Path young = Files.writeString(directory.resolve(UUID.randomUUID() + ".rewrite"), "pending");
    Path notOurs = Files.writeString(directory.resolve("notes.rewrite"), "mine");
    FileTime longAgo = FileTime.from(Instant.now().minus(OutcomeFiles.ORPHAN_AGE).minusSeconds(60));
    Files.setLastModifiedTime(old, longAgo);
    Files.setLastModifiedTime(notOurs, longAgo);
    List<RewriteOutcome> outcomes = Plans.rewrite(config, Plans.plan(config));

    try (var committer = committer(config, null)) {
      outcomes.forEach(outcome -> process(committer, outcome));
      OperatorMail.runNext(committer, "the commit");
      assertThat(onlySummary(committer).outcome()).isEqualTo(Outcome.COMMITTED);
    }
    assertThat(old).doesNotExist();
    assertThat(young).exists();
    assertThat(notOurs).exists();
  }

  /** A rewrite whose file is gone costs no data: a failed task, its fragments stay as they were. */
  @Test
  void aRewriteWhoseFileIsGoneIsAFailedTask() throws Exception {
    String big = dir.resolve("big").toString();
    CompactionConfig bigConfig = twoRunsOfManySmallFragments(big);
    List<RewriteOutcome> held = new ArrayList<>();
    try (OutcomeFiles files = new OutcomeFiles(bigConfig.dataset())) {
      Plans.rewrite(bigConfig, Plans.plan(bigConfig)).forEach(o -> held.add(files.hold(o)));
    }
    Files.delete(Path.of(big, held.get(0).resultFile()));

    try (LogCapture log = LogCapture.start();
        var committer = committer(bigConfig, null)) {
      held.forEach(outcome -> process(committer, outcome));
      OperatorMail.runNext(committer, "the commit");
      CompactionSummary summary = onlySummary(committer);
      assertThat(summary.outcome()).isEqualTo(Outcome.COMMITTED);
      assertThat(summary.tasksFailed()).isEqualTo(1);
      assertThat(summary.fragmentsRewritten()).as("the other task's").isEqualTo(200);
      assertThat(log.text())
          .contains("The rewrite of task 0 of compaction " + held.get(0).plan().planId())
          .contains(held.get(0).resultFile());
    }
    assertThat(LanceTestTables.fragmentCount(big))
        .as("200 + 1 + the other task's 1")
        .isEqualTo(202);
  }

  /**
   * The checkpoint was taken while the commit ran, and the job failed after the commit landed: the
   * restored outcomes are found in the table's history, not committed again.
   */
  @Test
  void aCommitThatLandedAfterTheSnapshotIsRecognisedAfterTheRestore() throws Exception {
    List<RewriteOutcome> outcomes = Plans.rewrite(config, Plans.plan(config));
    Map<Long, List<Object>> before = LineageTables.rowsByRowId(table);
    OperatorSubtaskState snapshot;
    long committed;
    try (var committer = committer(config, null)) {
      process(committer, outcomes.get(0));
      process(committer, outcomes.get(1));
      snapshot = committer.snapshot(1, 1);
      OperatorMail.runNext(committer, "the commit");
      assertThat(onlySummary(committer).outcome()).isEqualTo(Outcome.COMMITTED);
      committed = onlySummary(committer).version();
    }

    try (var restored = committer(config, snapshot)) {
      OperatorMail.runNext(restored, "the restored plan's commit");

      CompactionSummary summary = onlySummary(restored);
      assertThat(summary.outcome()).isEqualTo(Outcome.ALREADY_COMMITTED);
      assertThat(summary.version()).isEqualTo(committed);
      assertThat(pending(restored, 2)).isEmpty();
    }
    assertThat(LanceTestTables.latestVersion(table)).isEqualTo(committed);
    assertThat(LineageTables.rowsByRowId(table)).isEqualTo(before);
  }

  @Test
  void aFailedCommitIsAFailedSummaryAndTheNextPlanCommits() throws Exception {
    List<RewriteOutcome> outcomes = Plans.rewrite(config, Plans.plan(config));
    LineageTables.setConfig(table, Map.of("lance.row_lineage.spill", "yes"));
    Map<Long, List<Object>> before = LineageTables.rowsByRowId(table);
    long version = LanceTestTables.latestVersion(table);

    try (var committer = committer(config, null)) {
      outcomes.forEach(outcome -> process(committer, outcome));
      OperatorMail.runNext(committer, "the commit");

      CompactionSummary failed = onlySummary(committer);
      assertThat(failed.outcome()).isEqualTo(Outcome.FAILED);
      assertThat(failed.planId()).isEqualTo(outcomes.get(0).plan().planId());
      assertThat(failed.fragmentsBefore()).isEqualTo(5);
      assertThat(failed.failure())
          .isEqualTo(
              "Lance table '"
                  + table
                  + "': table config 'lance.row_lineage.spill' is 'yes', expected true or false");
      assertThat(pending(committer, 1)).isEmpty();
      assertThat(LanceTestTables.latestVersion(table)).isEqualTo(version);

      LineageTables.setConfig(table, Map.of("lance.row_lineage.spill", "false"));
      committer.getOutput().clear();
      Plans.rewrite(config, Plans.plan(config)).forEach(outcome -> process(committer, outcome));
      OperatorMail.runNext(committer, "the next plan's commit");

      assertThat(onlySummary(committer).outcome()).isEqualTo(Outcome.COMMITTED);
    }
    assertThat(LanceTestTables.fragmentCount(table)).isEqualTo(3);
    assertThat(LineageTables.rowsByRowId(table)).isEqualTo(before);
  }

  @Test
  void theRewritesOfAPlanWithAFailedTaskAreCommittedWithoutIt() throws Exception {
    List<RewriteOutcome> outcomes = Plans.rewrite(config, Plans.plan(config));
    Map<Long, List<Object>> before = LineageTables.rowsByRowId(table);
    RewriteOutcome failed = RewriteOutcome.failed(outcomes.get(1).plan(), 1, "timed out");

    try (var committer = committer(config, null)) {
      process(committer, outcomes.get(0));
      process(committer, failed);
      OperatorMail.runNext(committer, "the commit");

      CompactionSummary summary = onlySummary(committer);
      assertThat(summary.outcome()).isEqualTo(Outcome.COMMITTED);
      assertThat(summary.fragmentsRewritten()).isEqualTo(2);
      assertThat(summary.tasksFailed()).isEqualTo(1);
      assertThat(summary.fragmentsAfter()).isEqualTo(4);
    }
    assertThat(LanceTestTables.fragmentCount(table)).isEqualTo(4);
    assertThat(LineageTables.rowsByRowId(table)).isEqualTo(before);
  }

  @Test
  void aPassThatFoundNothingToCompactStillCleansUpOldVersions() throws Exception {
    CompactionConfig cleaning = Plans.config(table, "compaction.cleanup-older-than", "0 s");
    long version = LanceTestTables.latestVersion(table);
    assertThat(manifests(table)).isGreaterThan(1);

    try (var committer = committer(cleaning, null)) {
      process(committer, RewriteOutcome.emptyPlan(new PlanRef("empty-1", version, 0, 5)));
      OperatorMail.runNext(committer, "the pass's end");
      OperatorMail.runNext(committer, "the cleanup");

      CompactionSummary summary = onlySummary(committer);
      assertThat(summary.outcome()).isEqualTo(Outcome.NOTHING_TO_COMPACT);
      assertThat(summary.planId()).isEqualTo("empty-1");
      assertThat(summary.fragmentsBefore()).isEqualTo(5);
    }
    assertThat(manifests(table)).as("only the latest version is left").isEqualTo(1);
    assertThat(LanceTestTables.latestVersion(table)).isEqualTo(version);
  }

  /**
   * A long cleanup holds back no commit: the next plan commits while the cleanup after the plan
   * before still runs (the soak's upsert table lost its plans to the sink's commits once they
   * waited behind cleanups of a second), and one more cleanup follows for the commit made
   * meanwhile.
   */
  @Test
  void aPlanCommitsWhileTheCleanupAfterThePlanBeforeRuns() throws Exception {
    CompactionConfig cleaning =
        Plans.config(
            table,
            "compaction.target-rows-per-fragment",
            "100",
            "compaction.cleanup-older-than",
            "0 s");
    List<RewriteTask> tasks = Plans.plan(cleaning);
    assertThat(tasks).hasSize(2);
    List<RewriteOutcome> outcomes =
        Plans.rewrite(cleaning, List.of(alone("a", tasks.get(0)), alone("b", tasks.get(1))));
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger cleanups = new AtomicInteger();
    UnaryOperator<ToIntFunction<TableLoader>> held =
        cleanup ->
            loader -> {
              cleanups.incrementAndGet();
              try {
                release.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return 0;
              }
              return cleanup.applyAsInt(loader);
            };

    try (var committer = withCleanup(cleaning, held)) {
      process(committer, outcomes.get(0));
      OperatorMail.runNext(committer, "plan a's commit");
      Await.until(
          "the cleanup after plan a started", Duration.ofSeconds(60), () -> cleanups.get() == 1);
      process(committer, outcomes.get(1));
      OperatorMail.runNext(committer, "plan b's commit, the cleanup still running");
      assertThat(committer.extractOutputValues())
          .extracting(CompactionSummary::planId, CompactionSummary::outcome)
          .containsExactly(tuple("a", Outcome.COMMITTED), tuple("b", Outcome.COMMITTED));
      assertThat(cleanups).as("one cleanup at a time").hasValue(1);

      release.countDown();
      OperatorMail.runNext(committer, "the cleanup after plan a");
      OperatorMail.runNext(committer, "the cleanup after plan b");
      assertThat(cleanups).hasValue(2);
    }
    assertThat(LanceTestTables.fragmentCount(table)).isEqualTo(3);
    assertThat(manifests(table)).as("only the latest version is left").isEqualTo(1);
  }

  /**
   * A plan that committed nothing leaves the indexes as they are: bringing a key index up to date
   * rewrites it (up to a second on a large table), and the next plan's commit would wait for it.
   * The next plan that commits brings them up to date.
   */
  @Test
  void aPlanThatCommittedNothingLeavesTheIndexesToTheNextOneThatCommits() throws Exception {
    String indexed = dir.resolve("indexed").toString();
    LineageTables.createStable(indexed);
    LineageTables.append(indexed, 0, 1_000, 10);
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open(indexed, allocator)) {
      KeyIndex.ensure(dataset, PrimaryKey.of(TestRows.ROW_TYPE, List.of("id"), indexed));
    }
    // enough rows to be added to the index (ScalarIndexUpkeep), also once compacted
    LineageTables.append(indexed, 1_000, 110_000, 10);
    CompactionConfig indexing = Plans.config(indexed);
    List<RewriteOutcome> outcomes = Plans.rewrite(indexing, Plans.plan(indexing));
    LineageTables.delete(indexed, "id % 1000 = 0");
    assertThat(missesFragments(indexed)).as("110,000 rows appended after the index").isTrue();

    try (var committer = committer(indexing, null)) {
      outcomes.forEach(outcome -> process(committer, outcome));
      OperatorMail.runNext(committer, "the preempted commit");
      assertThat(onlySummary(committer).outcome()).isEqualTo(Outcome.NOTHING_COMMITTED);
      assertThat(missesFragments(indexed)).as("left as it was").isTrue();

      committer.getOutput().clear();
      Plans.rewrite(indexing, Plans.plan(indexing)).forEach(o -> process(committer, o));
      OperatorMail.runNext(committer, "the next plan's commit");
      assertThat(onlySummary(committer).outcome()).isEqualTo(Outcome.COMMITTED);
    }
    assertThat(missesFragments(indexed)).as("brought up to date").isFalse();
  }

  private static boolean missesFragments(String uri) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open(uri, allocator)) {
      return ScalarIndex.btreesOf(dataset).get(0).missesFragmentsOf(dataset);
    }
  }

  /** A plan of its own for one task of another. */
  private static RewriteTask alone(String planId, RewriteTask task) {
    PlanRef plan = task.plan();
    return new RewriteTask(
        new PlanRef(planId, plan.readVersion(), 1, plan.fragmentsBefore()), 0, task.task());
  }

  /**
   * A delete that landed after the rewrite: the rewrite is dropped (no deleted row comes back), and
   * the next plan compacts what the table holds then.
   */
  @Test
  void aPlanPreemptedByAConcurrentDeleteIsDroppedAndTheNextPlanCompacts() throws Exception {
    String changed = dir.resolve("changed").toString();
    LineageTables.createStable(changed);
    LineageTables.append(changed, 0, 1_000, 10);
    CompactionConfig changing = Plans.config(changed);
    List<RewriteOutcome> outcomes = Plans.rewrite(changing, Plans.plan(changing));
    LineageTables.delete(changed, "id % 3 = 0");
    List<Long> expected = LongStream.range(0, 1_000).filter(id -> id % 3 != 0).boxed().toList();

    try (var committer = committer(changing, null)) {
      outcomes.forEach(outcome -> process(committer, outcome));
      OperatorMail.runNext(committer, "the preempted commit");
      CompactionSummary preempted = onlySummary(committer);
      assertThat(preempted.outcome()).isEqualTo(Outcome.NOTHING_COMMITTED);
      assertThat(preempted.groupsPreempted()).isEqualTo(1);
      assertThat(LanceTestTables.readLongs(changed, "id"))
          .containsExactlyInAnyOrderElementsOf(expected);

      committer.getOutput().clear();
      Plans.rewrite(changing, Plans.plan(changing)).forEach(o -> process(committer, o));
      OperatorMail.runNext(committer, "the next plan's commit");
      assertThat(onlySummary(committer).outcome()).isEqualTo(Outcome.COMMITTED);
    }
    assertThat(LanceTestTables.fragmentCount(changed)).isEqualTo(1);
    assertThat(LanceTestTables.readLongs(changed, "id"))
        .containsExactlyInAnyOrderElementsOf(expected);
  }

  /**
   * Issue 28: lance-core 7.0.0 aborts the JVM committing a compaction of a table with a MemWAL. A
   * plan a MemWAL overtook is not committed; a pass on such a table commits nothing, and cleanup
   * goes on.
   */
  @Test
  void aTableThatGotAMemWalIsNotCompacted() throws Exception {
    String memWal = dir.resolve("memwal").toString();
    Plans.twelveSmallFragmentsWithAKey(memWal);
    CompactionConfig memWalConfig = Plans.config(memWal, "compaction.cleanup-older-than", "0 s");
    List<RewriteOutcome> outcomes = Plans.rewrite(memWalConfig, Plans.plan(memWalConfig));
    TestTables.initializeMemWal(memWal);
    long version = LanceTestTables.latestVersion(memWal);

    String log;
    try (LogCapture capture = LogCapture.start();
        var committer = committer(memWalConfig, null)) {
      outcomes.forEach(outcome -> process(committer, outcome));
      OperatorMail.runNext(committer, "the overtaken plan's commit");
      assertThat(onlySummary(committer).outcome()).isEqualTo(Outcome.NOTHING_COMMITTED);
      OperatorMail.runNext(committer, "the cleanup");

      committer.getOutput().clear();
      process(committer, RewriteOutcome.emptyPlan(new PlanRef("empty-1", version, 0, 12)));
      OperatorMail.runNext(committer, "the pass's end");
      assertThat(onlySummary(committer).outcome()).isEqualTo(Outcome.NOTHING_TO_COMPACT);
      log = capture.text();
    }

    assertThat(log).contains("the table got a MemWAL");
    assertThat(LanceTestTables.latestVersion(memWal)).as("nothing committed").isEqualTo(version);
    assertThat(LanceTestTables.fragmentCount(memWal)).isEqualTo(12);
    assertThat(LanceTestTables.readLongs(memWal, "id"))
        .containsExactlyInAnyOrderElementsOf(LongStream.range(0, 120).boxed().toList());
  }

  private static OneInputStreamOperatorTestHarness<RewriteOutcome, CompactionSummary> committer(
      CompactionConfig config, OperatorSubtaskState restored) throws Exception {
    return open(CompactionCommitter.factory(config), restored);
  }

  private static OneInputStreamOperatorTestHarness<RewriteOutcome, CompactionSummary> withCleanup(
      CompactionConfig config, UnaryOperator<ToIntFunction<TableLoader>> cleanupStep)
      throws Exception {
    return open(
        new MailboxOperatorFactory<RewriteOutcome, CompactionSummary>(
            CompactionCommitter.class,
            parameters -> new CompactionCommitter(parameters, config, cleanupStep)),
        null);
  }

  private static OneInputStreamOperatorTestHarness<RewriteOutcome, CompactionSummary> open(
      MailboxOperatorFactory<RewriteOutcome, CompactionSummary> factory,
      OperatorSubtaskState restored)
      throws Exception {
    var harness = new OneInputStreamOperatorTestHarness<RewriteOutcome, CompactionSummary>(factory);
    harness.initializeState(restored);
    harness.open();
    return harness;
  }

  private static void process(
      OneInputStreamOperatorTestHarness<RewriteOutcome, CompactionSummary> committer,
      RewriteOutcome outcome) {
    try {
      committer.processElement(new StreamRecord<>(outcome));
    } catch (Exception e) {
      throw new IllegalStateException("the committer failed at " + outcome, e);
    }
  }

  private static CompactionSummary onlySummary(
      OneInputStreamOperatorTestHarness<RewriteOutcome, CompactionSummary> committer) {
    List<CompactionSummary> summaries = committer.extractOutputValues();
    assertThat(summaries).hasSize(1);
    return summaries.get(0);
  }

  /** The outcomes waiting in the committer's state in a snapshot taken now, by name. */
  private static List<String> pending(
      OneInputStreamOperatorTestHarness<RewriteOutcome, CompactionSummary> committer,
      long checkpoint)
      throws Exception {
    List<String> names = new ArrayList<>();
    for (byte[] bytes : state(committer, checkpoint)) {
      names.add(
          name(
              SimpleVersionedSerialization.readVersionAndDeSerialize(
                  new RewriteOutcome.Serializer(), bytes)));
    }
    return names;
  }

  /** The entries of the committer's state in a snapshot taken now. */
  private static List<byte[]> state(
      OneInputStreamOperatorTestHarness<RewriteOutcome, CompactionSummary> committer,
      long checkpoint)
      throws Exception {
    committer.snapshot(checkpoint, checkpoint);
    List<byte[]> entries = new ArrayList<>();
    committer
        .getOperator()
        .getOperatorStateBackend()
        .getListState(
            new ListStateDescriptor<>(
                "lance-compaction-outcomes", BytePrimitiveArraySerializer.INSTANCE))
        .get()
        .forEach(entries::add);
    return entries;
  }

  /**
   * Fragments of 1 row: 200, then one of 300 rows, then 200 again. A target of 250 rows per
   * fragment makes a plan of two tasks, each rewriting 200 fragments.
   */
  private static CompactionConfig twoRunsOfManySmallFragments(String uri) {
    LineageTables.createStable(uri);
    LineageTables.append(uri, 0, 200, 200);
    LineageTables.append(uri, 200, 300, 1);
    LineageTables.append(uri, 500, 200, 200);
    return Plans.config(uri, "compaction.target-rows-per-fragment", "250");
  }

  /** How many bytes the committer's state takes in a snapshot taken now. */
  private static long stateBytes(
      OneInputStreamOperatorTestHarness<RewriteOutcome, CompactionSummary> committer,
      long checkpoint)
      throws Exception {
    return state(committer, checkpoint).stream().mapToLong(entry -> entry.length).sum();
  }

  private static int serialized(RewriteOutcome outcome) throws IOException {
    return SimpleVersionedSerialization.writeVersionAndSerialize(
            new RewriteOutcome.Serializer(), outcome)
        .length;
  }

  /** An outcome by its plan, task and what it brings (Lance's results have no equality). */
  private static String name(RewriteOutcome outcome) {
    return outcome.toString();
  }

  private static long manifests(String uri) {
    try (Stream<Path> files = Files.list(Path.of(uri, "_versions"))) {
      return files.filter(f -> f.toString().endsWith(".manifest")).count();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
