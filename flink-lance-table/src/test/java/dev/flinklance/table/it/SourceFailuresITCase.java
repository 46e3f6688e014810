package dev.flinklance.table.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.dataset.PermanentDatasetException;
import dev.flinklance.table.source.LanceSource;
import dev.flinklance.table.testing.TableTestCluster;
import dev.flinklance.table.testing.TestTables;
import dev.flinklance.testing.TestRows;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.cleanup.CleanupPolicy;

/**
 * Read failures no restart can fix end the job at once with the table's message, even with Flink
 * restarting failed jobs forever (a restart loop would run into the timeout).
 */
@Timeout(120)
class SourceFailuresITCase {
  @RegisterExtension static final MiniClusterExtension CLUSTER = TableTestCluster.create();

  @TempDir Path dir;
  private String table;

  @BeforeEach
  void writeTable() {
    table = dir.resolve("events").toString();
    TestTables.write(
        table, TestRows.ROW_TYPE, LongStream.range(0, 100).mapToObj(TestRows::row).toList(), 50);
  }

  @Test
  void aTableDeletedBeforeTheJobStarts() throws Exception {
    LanceSource source = LanceSource.builder().path(table).build();
    Dataset.drop(table, Map.of());

    assertPermanentFailure(source, "Lance table '" + table + "': the table does not exist");
  }

  @Test
  void aVersionCleanedUpBeforeTheJobStarts() throws Exception {
    LanceSource source = LanceSource.builder().path(table).version(2).build();
    TestTables.append(table, TestRows.ROW_TYPE, List.of(TestRows.row(100)), 1);
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open().allocator(allocator).uri(table).build()) {
      dataset.cleanupWithPolicy(
          CleanupPolicy.builder().withBeforeTimestampMillis(System.currentTimeMillis()).build());
    }

    assertPermanentFailure(source, "Lance table '" + table + "': cannot open version 2");
  }

  @Test
  void aFilterLanceRejects() throws Exception {
    LanceSource source = LanceSource.builder().path(table).filter("no_such_column > 1").build();

    assertPermanentFailure(source, "Lance table '" + table + "'");
  }

  private static void assertPermanentFailure(LanceSource source, String message) {
    Configuration restartForever = new Configuration();
    restartForever.set(RestartStrategyOptions.RESTART_STRATEGY, "exponential-delay");
    restartForever.set(
        RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_INITIAL_BACKOFF,
        Duration.ofMillis(10));
    restartForever.set(
        RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_MAX_BACKOFF,
        Duration.ofMillis(100));
    StreamExecutionEnvironment env =
        StreamExecutionEnvironment.getExecutionEnvironment(restartForever);
    env.setParallelism(2);
    assertThatThrownBy(
            () -> {
              List<RowData> rows = new ArrayList<>();
              try (CloseableIterator<RowData> it =
                  env.fromSource(source, WatermarkStrategy.noWatermarks(), "lance")
                      .executeAndCollect()) {
                it.forEachRemaining(rows::add);
              }
            })
        .satisfies(
            e -> {
              assertThat(ExceptionUtils.stringifyException(e)).contains(message);
              assertThat(ExceptionUtils.findThrowable(e, PermanentDatasetException.class))
                  .isPresent();
            });
  }
}
