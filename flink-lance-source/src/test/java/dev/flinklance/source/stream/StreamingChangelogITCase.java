package dev.flinklance.source.stream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.source.LanceSource;
import dev.flinklance.source.testing.KeyedChangelog;
import dev.flinklance.source.testing.SourceTable;
import dev.flinklance.testing.ChangeStream;
import dev.flinklance.testing.TestClusters;
import dev.flinklance.testing.TestRows;
import dev.flinklance.testing.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A changelog read in a job at parallelism 2, while Lance upserts and deletes: one reader reads
 * every change, so that a key's changes reach a keyed operator in commit order. (What each of
 * Lance's changes reads as, the policies and the errors: {@code ChangelogReadTest}, {@code
 * ChangePlannerTest}; one reader for every split: {@code LanceSplitEnumeratorTest}.)
 */
@Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class StreamingChangelogITCase {
  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @TempDir Path dir;

  private static String format(RowData row) {
    return row.getRowKind().shortString() + "[" + row.getLong(0) + ", " + row.getString(1) + "]";
  }

  /**
   * At parallelism 2 one reader reads every split and the other stays idle, so that a key's changes
   * reach a keyed operator of any parallelism in order.
   */
  @Test
  void aChangelogReadUsesOneReader() throws Exception {
    String table = dir.resolve("customers").toString();
    TestTables.create(table, TestRows.ROW_TYPE, Map.of(), true);
    SourceTable.at(table).append(0, 40, 10);
    String token = UUID.randomUUID().toString();
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(2);
    LanceSource source =
        LanceSource.builder()
            .path(table)
            .streaming()
            .discoveryInterval(Duration.ofMillis(100))
            .batchSize(4)
            .changelog(true)
            .build();
    DataStream<RowData> changes =
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "lance")
            .map(new RecordReader(token))
            .returns(TestRows.TYPE_INFO)
            .keyBy(row -> row.getLong(0))
            .map(row -> row)
            .returns(TestRows.TYPE_INFO);
    try (ChangeStream stream = ChangeStream.start(env, changes, StreamingChangelogITCase::format)) {
      KeyedChangelog changelog = new KeyedChangelog().apply(stream.take(40));
      for (int step = 0; step < 10; step++) {
        SourceTable.at(table)
            .upsert(Map.of((long) step, "step-" + step, (long) step + 1, "step-" + step));
        TestTables.delete(table, "id = " + (20 + step));
      }
      List<String> expected = KeyedChangelog.tableRows(table);
      stream.takeUntil(
          more -> {
            changelog.apply(more.subList(changelog.appliedCount() - 40, more.size()));
            return changelog.rows().equals(expected);
          });
      assertThat(changelog.violations()).isEmpty();
    }
    assertThat(RecordReader.READERS.get(token)).hasSize(1);
  }

  /** Records which source subtasks (it is chained to them) emitted rows. */
  private static final class RecordReader extends RichMapFunction<RowData, RowData> {
    private static final long serialVersionUID = 1L;
    static final Map<String, Set<Integer>> READERS = new ConcurrentHashMap<>();
    private final String token;

    RecordReader(String token) {
      this.token = token;
    }

    @Override
    public RowData map(RowData row) {
      READERS
          .computeIfAbsent(token, t -> ConcurrentHashMap.newKeySet())
          .add(getRuntimeContext().getTaskInfo().getIndexOfThisSubtask());
      return row;
    }
  }
}
