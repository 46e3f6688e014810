package dev.flinklance.sink.dynamic;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.errors.LanceDatasetException;
import dev.flinklance.sink.TableReplacement;
import dev.flinklance.testing.TestClusters;
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

/**
 * One of the dynamic sink's tables deleted and recreated under the running job: the job fails
 * naming that table, and nothing is committed to the new table.
 */
class DynamicTableReplacedITCase {

  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @TempDir Path dir;

  @Test
  void aTableReplacedUnderTheJobIsNeverWritten() throws Exception {
    String warehouse = dir.resolve("warehouse").toString();
    String replaced = warehouse + "/db/" + ManyTables.table(3) + ".lance";
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(2);
    env.enableCheckpointing(1_000);
    env.fromSource(
            new ManyTables(5, 1_000_000, 50, Long.MAX_VALUE)
                .source(RateLimiterStrategy.perCheckpoint(100)),
            WatermarkStrategy.noWatermarks(),
            "records")
        .setParallelism(1)
        .sinkTo(DynamicLanceSink.builder().warehouse(warehouse).build());
    JobClient job = env.executeAsync();
    TableReplacement.afterACommit(job, replaced, dir.resolve("old"));

    Throwable failure = TableReplacement.failureOf(job);
    // The committer finds the table replaced; a writer finishing a file in the instant between
    // the move and the new table finds it gone: either way the job fails naming the table.
    assertThat(ExceptionUtils.findThrowable(failure, LanceDatasetException.class))
        .as(ExceptionUtils.stringifyException(failure))
        .get()
        .satisfies(
            e ->
                assertThat(e.getMessage())
                    .contains(replaced)
                    .containsAnyOf("was replaced", "does not exist"));
    TableReplacement.assertUntouched(replaced);
  }
}
