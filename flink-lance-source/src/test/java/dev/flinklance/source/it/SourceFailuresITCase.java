package dev.flinklance.source.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.errors.PermanentDatasetException;
import dev.flinklance.source.LanceSource;
import dev.flinklance.testing.TestClusters;
import dev.flinklance.testing.TestRows;
import dev.flinklance.testing.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.WriteParams;
import org.lance.cleanup.CleanupPolicy;

/**
 * Read failures no restart can fix end the job at once with the table's message, although Flink
 * restarts failed jobs forever here (a restart loop would run into the timeout).
 */
// a separate thread: the collecting client does not answer an interrupt
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SourceFailuresITCase {
  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @TempDir Path dir;

  private String localTable() {
    String table = dir.resolve("events").toString();
    TestTables.write(
        table, TestRows.ROW_TYPE, LongStream.range(0, 100).mapToObj(TestRows::row).toList(), 50);
    return table;
  }

  @Test
  void aTableDroppedAfterPlanning() throws Exception {
    String table = localTable();
    LanceSource source = LanceSource.builder().path(table).build();
    Dataset.drop(table, Map.of());

    assertPermanentFailure(source, "Lance table '" + table + "': the table does not exist");
  }

  @Test
  void aVersionCleanedUpAfterPlanning() throws Exception {
    String table = localTable();
    LanceSource source = LanceSource.builder().path(table).version(2).build();
    TestTables.append(table, TestRows.ROW_TYPE, List.of(TestRows.row(100)), 1);
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open().allocator(allocator).uri(table).build()) {
      dataset.cleanupWithPolicy(
          CleanupPolicy.builder().withBeforeTimestampMillis(System.currentTimeMillis()).build());
    }

    assertPermanentFailure(source, "Lance table '" + table + "': cannot open version 2");
  }

  /** The table was replaced, without the column 'name', between planning and the job's start. */
  @Test
  void aTableReplacedWithAnotherSchemaAfterPlanning() throws Exception {
    String table = localTable();
    LanceSource source = LanceSource.builder().path(table).columns("id", "name").build();
    try (BufferAllocator allocator = new RootAllocator();
        Dataset ignored =
            Dataset.write()
                .allocator(allocator)
                .uri(table)
                .schema(new Schema(List.of(Field.notNullable("id", new ArrowType.Int(64, true)))))
                .mode(WriteParams.WriteMode.OVERWRITE)
                .execute()) {
      // replaced
    }

    assertPermanentFailure(
        source,
        "Lance table '"
            + table
            + "': version 3 no longer has the columns the job reads: Column 'name' does not"
            + " exist in the table");
  }

  @Test
  void aFilterLanceRejects() throws Exception {
    String table = localTable();
    LanceSource source = LanceSource.builder().path(table).filter("no_such_column > 1").build();

    assertPermanentFailure(source, "Lance table '" + table + "': cannot scan fragment");
  }

  private static StreamExecutionEnvironment restartingForever() {
    Configuration config = new Configuration();
    config.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, Integer.MAX_VALUE);
    config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(10));
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
    env.setParallelism(2);
    return env;
  }

  private static void assertPermanentFailure(LanceSource source, String message) {
    StreamExecutionEnvironment env = restartingForever();
    assertThatThrownBy(
            () -> {
              try (CloseableIterator<RowData> it =
                  env.fromSource(source, WatermarkStrategy.noWatermarks(), "lance")
                      .executeAndCollect()) {
                it.forEachRemaining(row -> {});
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
