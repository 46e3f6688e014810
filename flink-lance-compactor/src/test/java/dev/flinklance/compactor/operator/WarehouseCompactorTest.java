package dev.flinklance.compactor.operator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.access.Warehouse;
import dev.flinklance.compactor.commit.CompactionSummary;
import dev.flinklance.compactor.commit.CompactionSummary.Outcome;
import dev.flinklance.maintenance.CommittedCheckpoint;
import dev.flinklance.maintenance.TableCommit;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.OperatorMail;
import dev.flinklance.testing.TestRows;
import dev.flinklance.testing.TestTables;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dynamic sink's compactor on Flink's keyed operator test harness, on real tables of a
 * warehouse: a table is passed over after its commits, one table at a time, a table queued once
 * however many commits arrive meanwhile, compacted only when its triggers fire; the end of the
 * input waits for the tables queued. Each pass runs in the background; the test runs its result
 * from the harness's mailbox.
 */
class WarehouseCompactorTest {
  @TempDir Path dir;
  private Warehouse warehouse;

  @BeforeEach
  void twoTablesOfTwelveSmallFragments() {
    warehouse = new Warehouse(dir.toString(), Map.of());
    for (String table : List.of("a", "b")) {
      String uri = warehouse.tableUri("db", table);
      TestTables.create(uri, TestRows.ROW_TYPE, Map.of());
      TestTables.append(
          uri, TestRows.ROW_TYPE, LongStream.range(0, 120).mapToObj(TestRows::row).toList(), 10);
    }
  }

  @Test
  void eachTableIsPassedOverAfterItsCommitsOneAtATime() throws Exception {
    try (var compactor = compactor("compaction.trigger.small-fragments", "4")) {
      compactor.processElement(commit("a", 1));
      compactor.processElement(commit("b", 1));
      compactor.processElement(commit("a", 2)); // a's pass runs: a is queued again, once
      compactor.processElement(commit("a", 3));
      OperatorMail.runNext(compactor, "the pass over a");
      OperatorMail.runNext(compactor, "the pass over b");
      OperatorMail.runNext(compactor, "the second pass over a");

      List<CompactionSummary> summaries = compactor.extractOutputValues();
      assertThat(summaries).extracting(CompactionSummary::outcome).containsOnly(Outcome.COMMITTED);
      assertThat(summaries).extracting(CompactionSummary::fragmentsBefore).containsOnly(12);
      assertThat(summaries).hasSize(2); // a's second look found one fragment: below its trigger
      assertThat(compactor.getTaskMailbox().hasMail()).isFalse();
    }
    for (String table : List.of("a", "b")) {
      String uri = warehouse.tableUri("db", table);
      assertThat(LanceTestTables.fragmentCount(uri)).as("fragments of %s", table).isEqualTo(1);
      assertThat(LanceTestTables.readLongs(uri, "id"))
          .containsExactlyInAnyOrderElementsOf(LongStream.range(0, 120).boxed().toList());
    }
  }

  @Test
  void aTableBelowItsTriggersIsLookedAtAndLeftAlone() throws Exception {
    String uri = warehouse.tableUri("db", "a");
    long version = LanceTestTables.latestVersion(uri);
    try (var compactor = compactor("compaction.trigger.small-fragments", "20")) {
      compactor.processElement(commit("a", 1));
      OperatorMail.runNext(compactor, "the pass over a");
      assertThat(compactor.extractOutputValues()).isEmpty();
    }
    assertThat(LanceTestTables.latestVersion(uri)).isEqualTo(version);
  }

  @Test
  void theEndOfInputWaitsForTheTablesQueued() throws Exception {
    try (var compactor = compactor("compaction.trigger.small-fragments", "4")) {
      compactor.processElement(commit("a", Long.MAX_VALUE));
      compactor.processElement(commit("b", Long.MAX_VALUE));
      compactor.endInput();
      assertThat(compactor.extractOutputValues()).hasSize(2);
    }
    assertThat(LanceTestTables.fragmentCount(warehouse.tableUri("db", "a"))).isEqualTo(1);
    assertThat(LanceTestTables.fragmentCount(warehouse.tableUri("db", "b"))).isEqualTo(1);
  }

  private KeyedOneInputStreamOperatorTestHarness<String, TableCommit, CompactionSummary> compactor(
      String... options) throws Exception {
    Configuration conf = new Configuration();
    for (int i = 0; i < options.length; i += 2) {
      conf.setString(options[i], options[i + 1]);
    }
    var harness =
        new KeyedOneInputStreamOperatorTestHarness<String, TableCommit, CompactionSummary>(
            WarehouseCompactor.factory(warehouse, conf), TableCommit::key, Types.STRING);
    harness.open();
    return harness;
  }

  private static StreamRecord<TableCommit> commit(String table, long checkpoint) {
    return new StreamRecord<>(
        new TableCommit("db", table, new CommittedCheckpoint(checkpoint, "run", checkpoint)));
  }
}
