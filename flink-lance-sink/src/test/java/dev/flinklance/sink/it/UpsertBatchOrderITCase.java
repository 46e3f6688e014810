package dev.flinklance.sink.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.sink.LanceSink;
import dev.flinklance.testing.Changelog;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.LanceTestTables.Commit;
import dev.flinklance.testing.TestClusters;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A changelog into a sink with a primary key in {@code BATCH} execution mode, where the whole input
 * is one commit: the table ends as a replay of the changes in the order each source subtask sent
 * them (the last change of a key wins), with a source at parallelism 1 and with parallel sources
 * that each own their keys.
 */
class UpsertBatchOrderITCase {
  private static final int CHANGES = 30_000;
  private static final int KEYS = 500;

  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @TempDir Path dir;

  @ParameterizedTest(name = "writer parallelism {0}")
  @ValueSource(ints = {1, 3})
  void theLastChangeOfEveryKeyWins(int parallelism) throws Exception {
    String table = dir.resolve("t").toString();
    Changelog changelog = new Changelog(CHANGES, KEYS, KEYS / 2);
    StreamExecutionEnvironment env = batchEnv(parallelism);
    env.fromSource(
            changelog.source(RateLimiterStrategy.noOp()),
            WatermarkStrategy.noWatermarks(),
            "changelog")
        .setParallelism(1)
        .sinkTo(LanceSink.forRowData(Changelog.ROW_TYPE).path(table).primaryKey("id").build());
    env.execute();

    assertThat(Changelog.tableRows(table, Map.of())).isEqualTo(changelog.model());
    assertThat(LanceTestTables.sinkCommits(table))
        .extracting(Commit::operation)
        .containsExactly("Update");
  }

  /**
   * Three source subtasks, each reading one contiguous third of the changes, whose keys no other
   * third touches: each key's changes leave one subtask, in order, and the writers (at another
   * parallelism) apply them in that order.
   */
  @Test
  void parallelSourcesKeepTheOrderOfEachSubtask() throws Exception {
    String table = dir.resolve("t").toString();
    int sources = 3;
    OwnKeysPerThird changes = new OwnKeysPerThird(new Changelog(CHANGES, KEYS, KEYS / 2));
    StreamExecutionEnvironment env = batchEnv(2);
    env.fromSource(
            new DataGeneratorSource<>(
                changes, CHANGES, RateLimiterStrategy.noOp(), Changelog.TYPE_INFO),
            WatermarkStrategy.noWatermarks(),
            "changelog")
        .setParallelism(sources)
        .sinkTo(LanceSink.forRowData(Changelog.ROW_TYPE).path(table).primaryKey("id").build());
    env.execute();

    Map<Long, List<Object>> expected = new TreeMap<>();
    for (long i = 0; i < CHANGES; i++) {
      RowData change = changes.map(i);
      if (change.getRowKind() == RowKind.DELETE || change.getRowKind() == RowKind.UPDATE_BEFORE) {
        expected.remove(change.getLong(0));
      } else {
        expected.put(
            change.getLong(0),
            Arrays.asList(
                change.getLong(0),
                change.isNullAt(1) ? null : change.getString(1).toString(),
                change.getLong(2)));
      }
    }
    assertThat(Changelog.tableRows(table, Map.of())).isEqualTo(expected);
  }

  private static StreamExecutionEnvironment batchEnv(int parallelism) {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setRuntimeMode(RuntimeExecutionMode.BATCH);
    env.setParallelism(parallelism);
    return env;
  }

  /**
   * The changelog with the keys of each third of the changes moved to a range of their own: the
   * data generator hands each of three readers one contiguous third.
   */
  private record OwnKeysPerThird(Changelog changelog) implements GeneratorFunction<Long, RowData> {
    @Override
    public RowData map(Long index) {
      GenericRowData change = (GenericRowData) changelog.change(index);
      long third = index * 3 / CHANGES;
      change.setField(0, change.getLong(0) + third * KEYS);
      return change;
    }
  }
}
