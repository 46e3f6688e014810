package dev.flinklance.compactor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.sink.LanceSink;
import dev.flinklance.sink.dynamic.DynamicLanceSink;
import dev.flinklance.sink.dynamic.DynamicRecord;
import dev.flinklance.sink.dynamic.DynamicRecordTypeInfo;
import dev.flinklance.testing.TestRows;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.runtime.OperatorIDPair;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.junit.jupiter.api.Test;

/**
 * The compaction operators' ids, by which savepoints map their state, are fixed: the same for every
 * run of the same job, whatever the operators' display names, and equal to the ids they had (the
 * standalone job's were taken from the code of 2026-12-03). A changed uid fails here before it
 * fails a user's restore.
 */
class OperatorIdsTest {

  @Test
  void theStandaloneJobKeepsItsOperatorIds() {
    for (String[] args : new String[][] {{"--path", "/tmp/t", "--once"}, {"--path", "/tmp/t"}}) {
      StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
      LanceCompactionJob.build(env, CompactionJobArgs.parse(args));

      assertThat(operatorIds(env.getStreamGraph().getJobGraph()))
          .containsExactlyInAnyOrderEntriesOf(
              Map.of(
                  "Source: Lance Compaction Passes", "bc764cd8ddf7a0cff126f51c16239658",
                  "Lance Compaction Planner", "08b67cf1c32166f499ee8591dfbd1682",
                  "Lance Rewrite Workers", "4db1b43f2b726ba26d0338163142163d",
                  "Lance Compaction Committer", "71edaf63f106ad21d1198d5c32105c23"));
    }
  }

  /** Under a sink with a uid, Flink prefixes each with it: "lance-sink: Lance Compaction ...". */
  @Test
  void compactionInASinksJobHasIdsFromTheSinksUid() {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.fromSource(TestRows.source(10), WatermarkStrategy.noWatermarks(), "ids")
        .uid("ids")
        .filter(row -> true) // an operator more or less upstream changes nothing
        .sinkTo(
            LanceSink.forRowData(TestRows.ROW_TYPE)
                .path("/tmp/t")
                .options(Map.of("compaction.enabled", "true"))
                .build())
        .uid("lance-sink");

    assertThat(operatorIds(env.getStreamGraph().getJobGraph()))
        .containsAllEntriesOf(
            Map.of(
                "Sink: Lance Compaction Trigger", "d76a3148bc8c64674783fd96ff444de1",
                "Sink: Lance Compaction Planner", "50dec80b6018ff976eb8778a724a99c8",
                "Sink: Lance Rewrite Workers", "010abfb011213ff699bb6c522f3898d1",
                "Sink: Lance Compaction Committer", "bd7faddb54cf48abfee61fef6912596b"));
  }

  /** The dynamic sink's operators and its compaction, under the sink's uid as well. */
  @Test
  void compactionInADynamicSinksJobHasIdsFromTheSinksUid() {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.fromData(
            DynamicRecord.append(
                "db", "t", TestRows.ROW_TYPE, GenericRowData.of(1L, StringData.fromString("a"))))
        .returns(new DynamicRecordTypeInfo())
        .sinkTo(
            DynamicLanceSink.builder()
                .warehouse("/tmp/w")
                .option("compaction.enabled", "true")
                .build())
        .uid("lance-dynamic-sink");

    assertThat(operatorIds(env.getStreamGraph().getJobGraph()))
        .containsAllEntriesOf(
            Map.of(
                "Sink: Writer", "4c63a21f47c01458aa075379c3cf09f2",
                "Sink: Lance Dynamic Commit Aggregator", "9a2271b16cd57a7045b5458ed14889b7",
                "Sink: Committer", "346a6fc1f44fbb6581812ab83cc8de5e",
                "Sink: Lance Dynamic Committed Checkpoints", "7bb79cddfbf49d25231f78547e2de28e",
                "Sink: Lance Warehouse Compactor", "a0b7adba2a51165a08f5b4067334eb4b"));
  }

  private static Map<String, String> operatorIds(JobGraph graph) {
    Map<String, String> ids = new TreeMap<>();
    for (JobVertex vertex : graph.getVertices()) {
      String[] names = vertex.getName().split(" -> ");
      int i = names.length - 1; // a chain lists its operators from the last to the head
      for (OperatorIDPair operator : vertex.getOperatorIDs()) {
        ids.put(names[i--], operator.getGeneratedOperatorID().toHexString());
      }
    }
    return ids;
  }
}
