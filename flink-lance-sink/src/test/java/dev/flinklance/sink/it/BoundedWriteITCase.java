package dev.flinklance.sink.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.sink.LanceSink;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.LanceTestTables.Commit;
import dev.flinklance.testing.TestClusters;
import dev.flinklance.testing.TestRows;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.LongStream;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Bounded input into a new table: everything committed, exactly once, at any parallelism. */
class BoundedWriteITCase {
  private static final int ROWS = 5_000;

  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @TempDir Path dir;

  @ParameterizedTest(name = "parallelism {0}")
  @ValueSource(ints = {1, 4})
  void writesEveryRowOnceWithCheckpointing(int parallelism) throws Exception {
    String table = dir.resolve("events").toString();
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(parallelism);
    env.enableCheckpointing(100);
    run(env, table);

    assertExactlyOnce(table);
    List<Commit> commits = LanceTestTables.sinkCommits(table);
    assertThat(commits).isNotEmpty();
    assertThat(commits).extracting(Commit::checkpointId).doesNotHaveDuplicates().isSorted();
    assertThat(commits).extracting(Commit::commitUser).containsOnly(commits.get(0).commitUser());
    assertThat(LanceTestTables.fragmentCount(table))
        .as("at most one fragment file per writer and checkpoint")
        .isLessThanOrEqualTo(parallelism * commits.size());
  }

  @ParameterizedTest(name = "parallelism {0}")
  @ValueSource(ints = {1, 4})
  void commitsAtEndOfInputWithoutCheckpointing(int parallelism) throws Exception {
    String table = dir.resolve("events").toString();
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(parallelism);
    run(env, table);

    assertExactlyOnce(table);
    assertThat(LanceTestTables.sinkCommits(table)).hasSize(1);
  }

  @Test
  void commitsInBatchMode() throws Exception {
    String table = dir.resolve("events").toString();
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setRuntimeMode(RuntimeExecutionMode.BATCH);
    env.setParallelism(4);
    run(env, table);

    assertExactlyOnce(table);
    assertThat(LanceTestTables.sinkCommits(table)).hasSize(1);
  }

  @Test
  void overwriteReplacesTheRowsInOneCommitInBatchMode() throws Exception {
    String table = dir.resolve("events").toString();
    StreamExecutionEnvironment append = StreamExecutionEnvironment.getExecutionEnvironment();
    append.setParallelism(2);
    run(append, table);

    StreamExecutionEnvironment overwrite = StreamExecutionEnvironment.getExecutionEnvironment();
    overwrite.setRuntimeMode(RuntimeExecutionMode.BATCH);
    overwrite.setParallelism(2);
    overwrite
        .fromSource(TestRows.source(10), WatermarkStrategy.noWatermarks(), "ids")
        .sinkTo(LanceSink.forRowData(TestRows.ROW_TYPE).path(table).overwrite(true).build());
    overwrite.execute();

    assertThat(LanceTestTables.readLongs(table, "id"))
        .containsExactlyInAnyOrderElementsOf(LongStream.range(0, 10).boxed().toList());
    List<Commit> commits = LanceTestTables.sinkCommits(table);
    assertThat(commits.get(commits.size() - 1).operation()).isEqualTo("Overwrite");
    assertThat(commits).filteredOn(c -> c.operation().equals("Overwrite")).hasSize(1);
  }

  @Test
  void overwriteWithoutRowsEmptiesTheTable() throws Exception {
    String table = dir.resolve("events").toString();
    StreamExecutionEnvironment append = StreamExecutionEnvironment.getExecutionEnvironment();
    run(append, table);

    StreamExecutionEnvironment overwrite = StreamExecutionEnvironment.getExecutionEnvironment();
    overwrite.setRuntimeMode(RuntimeExecutionMode.BATCH);
    overwrite
        .fromSource(TestRows.source(5), WatermarkStrategy.noWatermarks(), "ids")
        .filter(row -> false)
        .returns(TestRows.TYPE_INFO)
        .sinkTo(LanceSink.forRowData(TestRows.ROW_TYPE).path(table).overwrite(true).build());
    overwrite.execute();

    assertThat(LanceTestTables.countRows(table)).isZero();
    assertThat(
            LanceTestTables.commits(table)
                .get(LanceTestTables.commits(table).size() - 1)
                .operation())
        .isEqualTo("Overwrite");
  }

  @Test
  void stampsTheConfiguredCommitUser() throws Exception {
    String table = dir.resolve("events").toString();
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(2);
    env.fromSource(TestRows.source(100), WatermarkStrategy.noWatermarks(), "ids")
        .sinkTo(
            LanceSink.forRowData(TestRows.ROW_TYPE)
                .path(table)
                .commitUser("ingest-events")
                .build());
    env.execute();

    assertThat(LanceTestTables.sinkCommits(table))
        .singleElement()
        .satisfies(
            commit -> {
              assertThat(commit.commitUser()).isEqualTo("ingest-events");
              assertThat(commit.properties()).containsKeys("flink.job-id", "flink-lance.version");
              assertThat(commit.operation()).isEqualTo("Append");
            });
  }

  @Test
  void acceptsFileUrisAndRollsFilesAtMaxRowsPerFile() throws Exception {
    String table = dir.resolve("events").toString();
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(1);
    env.fromSource(TestRows.source(ROWS), WatermarkStrategy.noWatermarks(), "ids")
        .sinkTo(
            LanceSink.forRowData(TestRows.ROW_TYPE)
                .path("file://" + table)
                .maxRowsPerFile(1_000)
                .build());
    env.execute();

    assertExactlyOnce(table);
    assertThat(LanceTestTables.fragmentCount(table)).isEqualTo(ROWS / 1_000);
  }

  /**
   * Two sinks (two commit users) create and fill the same new table concurrently: Lance rebases
   * their appends on each other, and neither loses rows.
   */
  @Test
  void twoSinksShareATable() throws Exception {
    String table = dir.resolve("shared").toString();
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(2);
    env.enableCheckpointing(100);
    env.fromSource(
            TestRows.source(ROWS, RateLimiterStrategy.perCheckpoint(1_000)),
            WatermarkStrategy.noWatermarks(),
            "a")
        .sinkTo(LanceSink.forRowData(TestRows.ROW_TYPE).path(table).commitUser("a").build());
    env.fromSource(
            TestRows.source(ROWS, RateLimiterStrategy.perCheckpoint(1_000)),
            WatermarkStrategy.noWatermarks(),
            "b")
        .map(row -> TestRows.row(row.getLong(0) + ROWS))
        .returns(TestRows.TYPE_INFO)
        .sinkTo(LanceSink.forRowData(TestRows.ROW_TYPE).path(table).commitUser("b").build());
    env.execute();

    assertThat(LanceTestTables.readLongs(table, "id"))
        .containsExactlyInAnyOrderElementsOf(LongStream.range(0, 2 * ROWS).boxed().toList());
    for (String user : List.of("a", "b")) {
      assertThat(LanceTestTables.sinkCommits(table))
          .filteredOn(commit -> user.equals(commit.commitUser()))
          .extracting(Commit::checkpointId)
          .hasSizeGreaterThan(1)
          .doesNotHaveDuplicates()
          .isSorted();
    }
  }

  private static void run(StreamExecutionEnvironment env, String table) throws Exception {
    env.fromSource(TestRows.source(ROWS), WatermarkStrategy.noWatermarks(), "ids")
        .sinkTo(LanceSink.forRowData(TestRows.ROW_TYPE).path(table).build());
    env.execute();
  }

  private static void assertExactlyOnce(String table) {
    List<List<Object>> rows = LanceTestTables.readColumns(table, List.of("id", "name"));
    assertThat(rows)
        .extracting(row -> (Long) row.get(0))
        .containsExactlyInAnyOrderElementsOf(LongStream.range(0, ROWS).boxed().toList());
    assertThat(rows)
        .allSatisfy(row -> assertThat(row.get(1).toString()).isEqualTo("name-" + row.get(0)));
  }
}
