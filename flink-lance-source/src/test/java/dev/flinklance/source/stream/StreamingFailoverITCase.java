package dev.flinklance.source.stream;

import static org.apache.flink.core.execution.SavepointFormatType.CANONICAL;
import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.sink.LanceSink;
import dev.flinklance.source.LanceSource;
import dev.flinklance.source.testing.CommittedRows;
import dev.flinklance.source.testing.KeyedChangelog;
import dev.flinklance.testing.Await;
import dev.flinklance.testing.Failures;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestClusters;
import dev.flinklance.testing.TestRows;
import dev.flinklance.testing.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.stream.LongStream;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Exactly once across failures: a streaming read of a table that our sink (and Lance itself) keep
 * writing, through injected failures of the reading job and the loss of the TaskManager that runs
 * both jobs, against the exact rows of the table.
 */
@Timeout(value = 300, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class StreamingFailoverITCase {
  private static final int ROWS = 6_000;
  private static final Duration WAIT = Duration.ofSeconds(120);

  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @TempDir Path dir;

  private static StreamExecutionEnvironment restarting(int parallelism) {
    Configuration config = new Configuration();
    config.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 20);
    config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
    env.setParallelism(parallelism);
    env.enableCheckpointing(100);
    return env;
  }

  /** Our sink appends ids 0..ROWS-1, a checkpoint (one version) every 100 ms. */
  private static JobClient writeWithOurSink(String table) throws Exception {
    StreamExecutionEnvironment env = restarting(2);
    env.fromSource(
            TestRows.source(ROWS, RateLimiterStrategy.perSecond(1_500)),
            WatermarkStrategy.noWatermarks(),
            "ids")
        .sinkTo(LanceSink.forRowData(TestRows.ROW_TYPE).path(table).build());
    return env.executeAsync("writer");
  }

  /**
   * Lance to Flink to Lance: the streaming read copies every appended row into another table
   * through our exactly-once sink, while the first table is written, the reading job fails after a
   * checkpoint (mid-split: batches of 16 rows), and later the TaskManager of both jobs is lost
   * (between discoveries and reads: a version every 100 ms). The copy holds each row once.
   */
  @ParameterizedTest(name = "parallelism {0}")
  @ValueSource(ints = {1, 2})
  void copiesEveryAppendedRowOnceThroughFailures(
      int parallelism, @InjectMiniCluster MiniCluster cluster) throws Exception {
    String source = dir.resolve("source").toString();
    String copy = dir.resolve("copy").toString();
    TestTables.create(source, TestRows.ROW_TYPE, Map.of());
    String token = UUID.randomUUID().toString();

    JobClient writer = writeWithOurSink(source);
    StreamExecutionEnvironment env = restarting(parallelism);
    LanceSource read =
        LanceSource.builder()
            .path(source)
            .streaming()
            .discoveryInterval(Duration.ofMillis(100))
            .batchSize(16)
            .build();
    env.fromSource(read, WatermarkStrategy.noWatermarks(), "lance")
        .map(new Failures.FailAfterCheckpoint<>(token, 5))
        .returns(TestRows.TYPE_INFO)
        .sinkTo(LanceSink.forRowData(TestRows.ROW_TYPE).path(copy).build());
    JobClient reader = env.executeAsync("reader");

    Await.until(
        "the reader's failure",
        WAIT,
        reader,
        () -> Failures.fired(token) && rowsIn(copy) >= ROWS / 3);
    loseTheTaskManager(cluster);
    writer.getJobExecutionResult().get();
    Await.until("every row copied", WAIT, reader, () -> rowsIn(copy) >= ROWS);
    awaitCheckpoints(cluster, reader, 3); // a duplicate would be committed with one of them
    Await.cancel(reader, WAIT);

    assertThat(LanceTestTables.readLongs(copy, "id"))
        .containsExactlyInAnyOrderElementsOf(LongStream.range(0, ROWS).boxed().toList());
    assertThat(LanceTestTables.readLongs(source, "id")).hasSize(ROWS);
  }

  /**
   * Stopped with a savepoint while the first table is written, and started again from it (at
   * another parallelism too: the readers' splits are redistributed): the copy holds each row once.
   */
  @ParameterizedTest(name = "parallelism {0} then {1}")
  @CsvSource({"2,2", "2,1", "1,2"})
  void resumesFromASavepoint(int before, int after, @InjectMiniCluster MiniCluster cluster)
      throws Exception {
    String source = dir.resolve("source").toString();
    String copy = dir.resolve("copy").toString();
    TestTables.create(source, TestRows.ROW_TYPE, Map.of());
    JobClient writer = writeWithOurSink(source);

    JobClient first = startCopy(source, copy, before, null);
    Await.until("a quarter of the rows copied", WAIT, first, () -> rowsIn(copy) >= ROWS / 4);
    String savepoint =
        first
            .stopWithSavepoint(false, dir.resolve("savepoints").toUri().toString(), CANONICAL)
            .get();
    JobClient second = startCopy(source, copy, after, savepoint);
    writer.getJobExecutionResult().get();
    Await.until("every row copied", WAIT, second, () -> rowsIn(copy) >= ROWS);
    awaitCheckpoints(cluster, second, 3);
    Await.cancel(second, WAIT);

    assertThat(LanceTestTables.readLongs(copy, "id"))
        .containsExactlyInAnyOrderElementsOf(LongStream.range(0, ROWS).boxed().toList());
  }

  private JobClient startCopy(String source, String copy, int parallelism, String savepoint)
      throws Exception {
    StreamExecutionEnvironment env = restarting(parallelism);
    if (savepoint != null) {
      env.configure(
          new Configuration().set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint),
          getClass().getClassLoader());
    }
    LanceSource read =
        LanceSource.builder()
            .path(source)
            .streaming()
            .discoveryInterval(Duration.ofMillis(100))
            .batchSize(16)
            .build();
    env.fromSource(read, WatermarkStrategy.noWatermarks(), "lance")
        .uid("lance-source")
        .map(new Throttle())
        .uid("throttle")
        .returns(TestRows.TYPE_INFO)
        .sinkTo(LanceSink.forRowData(TestRows.ROW_TYPE).path(copy).build())
        .uid("copy");
    return env.executeAsync("copy");
  }

  /**
   * Slows the deletions of the large delete down (checkpoints complete while they are emitted) and
   * fails once in their middle.
   */
  private static final class FailAtLargeDelete implements MapFunction<RowData, RowData> {
    private static final long serialVersionUID = 1L;
    private final String token;

    FailAtLargeDelete(String token) {
      this.token = token;
    }

    @Override
    public RowData map(RowData row) throws Exception {
      long id = row.getLong(0);
      if (id >= 2_000_000 && row.getRowKind() == RowKind.DELETE) {
        Thread.sleep(1);
        if (id == 2_006_000 && Failures.fireOnce(token)) {
          throw new IllegalStateException("Injected failure at -D of " + id);
        }
      }
      return row;
    }
  }

  /** Slows the read down so that a savepoint finds splits half read. */
  private static final class Throttle implements MapFunction<RowData, RowData> {
    private static final long serialVersionUID = 1L;
    private long seen;

    @Override
    public RowData map(RowData row) throws Exception {
      if (++seen % 20 == 0) {
        Thread.sleep(1);
      }
      return row;
    }
  }

  /**
   * The changelog of a table our sink appends to while Lance deletes, upserts and compacts it, read
   * through the same failures into an exactly-once collector: applied in order to an empty table,
   * it gives the table, each key's changes in commit order. One delete takes 5,000 rows of one
   * fragment (too many to name in a filter: picked out of a scan), and the job fails while it emits
   * them, after checkpoints within them.
   */
  @Test
  void theChangelogThroughFailuresIsTheTable(@InjectMiniCluster MiniCluster cluster)
      throws Exception {
    String table = dir.resolve("customers").toString();
    TestTables.create(table, TestRows.ROW_TYPE, Map.of(), true);
    TestTables.append(
        table,
        TestRows.ROW_TYPE,
        LongStream.range(2_000_000, 2_010_000).mapToObj(TestRows::row).toList(),
        10_000);
    String token = UUID.randomUUID().toString();

    JobClient writer = writeWithOurSink(table);
    StreamExecutionEnvironment env = restarting(1);
    LanceSource read =
        LanceSource.builder()
            .path(table)
            .streaming()
            .changelog(true)
            .discoveryInterval(Duration.ofMillis(100))
            .batchSize(16)
            .build();
    env.fromSource(read, WatermarkStrategy.noWatermarks(), "lance")
        .map(new Failures.FailAfterCheckpoint<>(token, 5))
        .returns(TestRows.TYPE_INFO)
        .map(new FailAtLargeDelete(token + "-large"))
        .returns(TestRows.TYPE_INFO)
        .map(new CommittedRows(token, StreamingFailoverITCase::format))
        .returns(TestRows.TYPE_INFO)
        .sinkTo(new DiscardingSink<>());
    JobClient reader = env.executeAsync("changelog reader");

    Random random = new Random(7);
    boolean lost = false;
    for (int step = 0; !writer.getJobExecutionResult().isDone() || step < 30; step++) {
      List<Long> ids = LanceTestTables.readLongs(table, "id");
      if (!ids.isEmpty()) {
        int change = step % 3;
        int residue = random.nextInt(97);
        int at = step;
        retryingConflicts(
            () -> {
              switch (change) {
                case 0 -> TestTables.delete(table, "id % 97 = " + residue);
                case 1 -> upsertSome(table, new Random(at), ids, at);
                default -> TestTables.compact(table);
              }
            });
      }
      if (step == 3) {
        retryingConflicts(() -> TestTables.delete(table, "id >= 2000000 AND id % 2 = 0"));
      }
      if (!lost && Failures.fired(token) && step >= 10) {
        loseTheTaskManager(cluster);
        lost = true;
      }
      Thread.sleep(150);
    }
    writer.getJobExecutionResult().get();
    List<String> expected = KeyedChangelog.tableRows(table);
    Await.until(
        "the changelog to reach the table",
        WAIT,
        () -> new KeyedChangelog().apply(CommittedRows.published(token)).rows().equals(expected),
        () -> {
          KeyedChangelog got = new KeyedChangelog().apply(CommittedRows.published(token));
          List<String> missing = new ArrayList<>(expected);
          missing.removeAll(got.rows());
          List<String> extra = new ArrayList<>(got.rows());
          extra.removeAll(expected);
          return String.format(
              "the changelog (%d changes) reaching the table: missing %s, extra %s, violations %s",
              got.appliedCount(),
              missing.subList(0, Math.min(10, missing.size())),
              extra.subList(0, Math.min(10, extra.size())),
              got.violations().subList(0, Math.min(10, got.violations().size())));
        });
    Await.cancel(reader, WAIT);

    assertThat(lost).as("the TaskManager was lost").isTrue();
    assertThat(Failures.fired(token + "-large")).as("the failure within the large delete").isTrue();
    KeyedChangelog changelog = new KeyedChangelog().apply(CommittedRows.published(token));
    assertThat(changelog.violations()).isEmpty();
    assertThat(changelog.rows()).isEqualTo(expected);
  }

  /**
   * Lance's merge-insert of a few ids in the table (new names) and one id our sink never writes:
   * the ids stay unique.
   */
  private static void upsertSome(String table, Random random, List<Long> ids, int step) {
    List<RowData> rows =
        LongStream.concat(
                LongStream.range(0, 4).map(i -> ids.get(random.nextInt(ids.size()))),
                LongStream.of(1_000_000 + step))
            .distinct()
            .mapToObj(id -> (RowData) GenericRowData.of(id, StringData.fromString("step-" + step)))
            .toList();
    TestTables.upsert(table, TestRows.ROW_TYPE, "id", rows);
  }

  private static String format(RowData row) {
    return row.getRowKind().shortString() + "[" + row.getLong(0) + ", " + row.getString(1) + "]";
  }

  /** Lance's own operations conflict with each other (a delete with a compaction): again. */
  private static void retryingConflicts(Runnable change) throws InterruptedException {
    for (int attempt = 1; ; attempt++) {
      try {
        change.run();
        return;
      } catch (RuntimeException e) {
        if (attempt == 10) {
          throw e;
        }
        Thread.sleep(50);
      }
    }
  }

  /** Terminates the only TaskManager (every task of both jobs fails) and starts a new one. */
  private static void loseTheTaskManager(MiniCluster cluster) throws Exception {
    cluster.terminateTaskManager(0).get();
    cluster.startTaskManager();
  }

  private static long rowsIn(String table) {
    return LanceTestTables.hasVersion(table) ? LanceTestTables.countRows(table) : 0;
  }

  /** Waits until {@code job} has completed {@code count} more checkpoints than now. */
  private static void awaitCheckpoints(MiniCluster cluster, JobClient job, int count)
      throws Exception {
    long target = completedCheckpoints(cluster, job) + count;
    Await.until(
        count + " more checkpoints", WAIT, job, () -> completedCheckpoints(cluster, job) >= target);
  }

  private static long completedCheckpoints(MiniCluster cluster, JobClient job) {
    return cluster
        .getExecutionGraph(job.getJobID())
        .join()
        .getCheckpointStatsSnapshot()
        .getCounts()
        .getNumberOfCompletedCheckpoints();
  }
}
