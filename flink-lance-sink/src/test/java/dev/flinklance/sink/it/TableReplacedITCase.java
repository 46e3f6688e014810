package dev.flinklance.sink.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.errors.TableReplacedException;
import dev.flinklance.sink.LanceSink;
import dev.flinklance.sink.TableReplacement;
import dev.flinklance.testing.TestClusters;
import dev.flinklance.testing.TestRows;
import java.nio.file.Path;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** A table deleted and recreated under a running job fails the job and stays readable. */
class TableReplacedITCase {

  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @TempDir Path dir;

  @Test
  void aTableReplacedUnderARunningJobIsNeverWrittenAndStaysReadable() throws Exception {
    String table = dir.resolve("t").toString();
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(2);
    env.enableCheckpointing(1_000);
    env.fromSource(
            TestRows.source(1_000_000, RateLimiterStrategy.perCheckpoint(100)),
            WatermarkStrategy.noWatermarks(),
            "ids")
        .sinkTo(LanceSink.forRowData(TestRows.ROW_TYPE).path(table).build());
    JobClient job = env.executeAsync();
    TableReplacement.afterACommit(job, table, dir.resolve("old"));

    Throwable failure = TableReplacement.failureOf(job);
    assertThat(ExceptionUtils.findThrowable(failure, TableReplacedException.class))
        .as(ExceptionUtils.stringifyException(failure))
        .get()
        .satisfies(
            e ->
                assertThat(e.getMessage())
                    .startsWith("Lance table '" + table + "': the table was replaced"));
    TableReplacement.assertUntouched(table);
  }
}
