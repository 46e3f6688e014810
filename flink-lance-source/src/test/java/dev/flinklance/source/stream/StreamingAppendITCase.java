package dev.flinklance.source.stream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.source.LanceSource;
import dev.flinklance.source.LanceSourceBuilder;
import dev.flinklance.source.testing.SourceTable;
import dev.flinklance.testing.Await;
import dev.flinklance.testing.ChangeStream;
import dev.flinklance.testing.TableMetrics;
import dev.flinklance.testing.TestClusters;
import dev.flinklance.testing.TestRows;
import dev.flinklance.testing.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.LongStream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A streaming read of appended rows from the DataStream API: versions in order across parallel
 * readers, also across a restore, and the source's metrics. (The rows of each start position and of
 * a compaction: {@code ChangePlannerTest}.)
 */
@Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class StreamingAppendITCase {
  private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

  @RegisterExtension
  static final MiniClusterExtension CLUSTER = TestClusters.withMetrics(REPORTER, 4);

  @TempDir Path dir;

  private String table;

  private void createTable() {
    table = dir.resolve("events").toString();
    TestTables.create(table, TestRows.ROW_TYPE, Map.of());
  }

  private void append(long from, long to, int rowsPerFragment) {
    SourceTable.at(table).append(from, to, rowsPerFragment);
  }

  private static List<String> inserts(long from, long to) {
    return SourceTable.rows("+I", from, to);
  }

  private static String format(RowData row) {
    return row.getRowKind().shortString() + "[" + row.getLong(0) + ", " + row.getString(1) + "]";
  }

  private LanceSourceBuilder streaming() {
    return LanceSource.builder()
        .path(table)
        .streaming()
        .discoveryInterval(Duration.ofMillis(100))
        .batchSize(64);
  }

  private static ChangeStream start(LanceSource source, int parallelism) throws Exception {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(parallelism);
    return ChangeStream.start(
        env, env.fromSource(source, WatermarkStrategy.noWatermarks(), "lance"), row -> format(row));
  }

  /**
   * The table's rows, then every appended version, each row once; the readers hand a version's rows
   * downstream only after every row of the versions before (a map chained to the readers records
   * the order in which the rows left them).
   */
  @ParameterizedTest(name = "parallelism {0}")
  @ValueSource(ints = {1, 2})
  void readsTheTableThenEveryAppendInVersionOrder(int parallelism) throws Exception {
    createTable();
    append(0, 300, 100); // version 2: three fragments
    String token = UUID.randomUUID().toString();
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(parallelism);
    DataStream<RowData> rows =
        env.fromSource(streaming().build(), WatermarkStrategy.noWatermarks(), "lance")
            .map(new RecordOrder(token))
            .returns(TestRows.TYPE_INFO);
    try (ChangeStream stream = ChangeStream.start(env, rows, StreamingAppendITCase::format)) {
      assertThat(stream.take(300)).containsExactlyInAnyOrderElementsOf(inserts(0, 300));
      for (long version = 3; version <= 8; version++) {
        long from = 300 + (version - 3) * 100;
        append(from, from + 100, 25); // four fragments a version
      }
      assertThat(stream.take(600)).containsExactlyInAnyOrderElementsOf(inserts(300, 900));
      assertThat(stream.more(Duration.ofMillis(500))).isEmpty();
    }
    List<Long> versions = RecordOrder.ids(token).stream().map(id -> versionOf(id)).toList();
    assertThat(versions).hasSize(900).isSorted();
  }

  /**
   * Stopped with a savepoint while versions are half read and started again from it: the splits the
   * readers restore are read to their end before a later version's, and every row comes once.
   */
  @Test
  void keepsTheVersionOrderAcrossARestore() throws Exception {
    createTable();
    append(0, 300, 100);
    for (long version = 3; version <= 8; version++) {
      long from = 300 + (version - 3) * 100;
      append(from, from + 100, 25);
    }
    String token = UUID.randomUUID().toString();
    JobClient first = startOrdered(token, null);
    awaitIds(token, 250, first);
    String savepoint =
        first
            .stopWithSavepoint(
                false, dir.resolve("savepoints").toUri().toString(), SavepointFormatType.CANONICAL)
            .get();
    assertThat(RecordOrder.ids(token).size()).isLessThan(900);
    JobClient second = startOrdered(token, savepoint);
    awaitIds(token, 900, second);
    second.cancel().get();

    List<Long> ids = RecordOrder.ids(token);
    assertThat(ids).containsExactlyInAnyOrderElementsOf(LongStream.range(0, 900).boxed().toList());
    assertThat(ids.stream().map(id -> versionOf(id)).toList()).isSorted();
  }

  private JobClient startOrdered(String token, String savepoint) throws Exception {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    if (savepoint != null) {
      env.configure(
          new Configuration().set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint),
          getClass().getClassLoader());
    }
    env.setParallelism(2);
    env.enableCheckpointing(100);
    LanceSource everyVersion = streaming().startAfterVersion(1).batchSize(8).build();
    env.fromSource(everyVersion, WatermarkStrategy.noWatermarks(), "lance")
        .uid("lance-source")
        .map(new RecordOrder(token, 2))
        .uid("order")
        .returns(TestRows.TYPE_INFO)
        .sinkTo(new DiscardingSink<>());
    return env.executeAsync();
  }

  private static void awaitIds(String token, int count, JobClient job) throws Exception {
    Await.until(
        count + " rows read",
        Duration.ofSeconds(120),
        job,
        () -> RecordOrder.ids(token).size() >= count);
  }

  /** Ids 0..299 came with version 2, then 100 per version. */
  private static long versionOf(long id) {
    return id < 300 ? 2 : 3 + (id - 300) / 100;
  }

  /**
   * Nothing of the latest version at the start; the versions after it. The source's metrics say
   * when it has started (and how far it has read).
   */
  @Test
  void startsFromTheLatestVersionAndReportsItsProgress() throws Exception {
    createTable();
    append(0, 10, 10); // version 2
    try (ChangeStream stream = start(streaming().startFromLatest().build(), 2)) {
      awaitTableGauge(stream.jobId(), "currentVersion", 2);
      append(10, 20, 5); // version 3
      assertThat(stream.take(10)).containsExactlyInAnyOrderElementsOf(inserts(10, 20));
      awaitTableGauge(stream.jobId(), "currentVersion", 3);
      assertThat(tableGauge(stream.jobId(), "latestVersion")).isEqualTo(3);
      assertThat(tableGauge(stream.jobId(), "versionsBehindLatest")).isZero();
      assertThat(gauge(stream.jobId(), "unassignedSplits")).isZero();
      assertThat(gauge(stream.jobId(), "currentFetchEventTimeLag")).isNotNegative();
      // the enumerator's own gauges in the group lance, keyed by the table; FLIP-33's where Flink
      // puts them
      assertThat(TableMetrics.of(REPORTER, stream.jobId(), table).identifiers())
          .hasSize(3)
          .allSatisfy(id -> assertThat(id).contains(".lance.table." + table + "."));
      assertThat(REPORTER.findMetrics(stream.jobId(), "unassignedSplits").keySet())
          .noneMatch(id -> id.contains(".lance."));
      assertThat(REPORTER.findMetrics(stream.jobId(), "currentFetchEventTimeLag").keySet())
          .noneMatch(id -> id.contains(".lance."));
      assertThat(TableMetrics.prefixedNames(REPORTER, stream.jobId())).isEmpty();
      assertThat(stream.more(Duration.ofMillis(300))).isEmpty();
    }
  }

  private static long gauge(JobID job, String name) {
    List<Long> values = new ArrayList<>();
    for (Metric metric : REPORTER.findMetrics(job, name).values()) {
      values.add(((Number) ((Gauge<?>) metric).getValue()).longValue());
    }
    assertThat(values).as("values of gauge %s", name).isNotEmpty();
    return values.stream().mapToLong(Long::longValue).max().orElseThrow();
  }

  /** The highest value of the source's gauge {@code name} of this test's table. */
  private long tableGauge(JobID job, String name) {
    List<Long> values = TableMetrics.of(REPORTER, job, table).gauges(name);
    assertThat(values).as("values of gauge %s", name).isNotEmpty();
    return Collections.max(values);
  }

  private void awaitTableGauge(JobID job, String name, long atLeast) throws Exception {
    Await.until(
        "gauge " + name + " reaching " + atLeast,
        Duration.ofSeconds(60),
        () -> {
          List<Long> values = TableMetrics.of(REPORTER, job, table).gauges(name);
          return !values.isEmpty() && Collections.max(values) >= atLeast;
        },
        () -> "values " + TableMetrics.of(REPORTER, job, table).gauges(name));
  }

  /**
   * Records the ids of the rows, in the order they leave the readers it is chained to; can slow
   * them down.
   */
  private static final class RecordOrder implements MapFunction<RowData, RowData> {
    private static final long serialVersionUID = 1L;
    private static final Map<String, List<Long>> IDS = new ConcurrentHashMap<>();
    private final String token;
    private final long pauseMillis;

    RecordOrder(String token) {
      this(token, 0);
    }

    RecordOrder(String token, long pauseMillis) {
      this.token = token;
      this.pauseMillis = pauseMillis;
    }

    static List<Long> ids(String token) {
      return IDS.getOrDefault(token, List.of());
    }

    @Override
    public RowData map(RowData row) throws InterruptedException {
      Thread.sleep(pauseMillis);
      IDS.computeIfAbsent(token, t -> Collections.synchronizedList(new ArrayList<>()))
          .add(row.getLong(0));
      return row;
    }
  }
}
