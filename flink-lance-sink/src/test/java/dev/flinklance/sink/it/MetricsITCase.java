package dev.flinklance.sink.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.sink.InvalidRecordPolicy;
import dev.flinklance.sink.LanceSink;
import dev.flinklance.sink.LanceSinkBuilder;
import dev.flinklance.sink.LanceSinkOptions;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.LogCapture;
import dev.flinklance.testing.TableMetrics;
import dev.flinklance.testing.TestClusters;
import dev.flinklance.testing.TestRows;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Flink's standard sink metrics on the writer, and the committer's Lance metrics. */
class MetricsITCase {
  private static final int ROWS = 3_000;
  private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

  @RegisterExtension
  static final MiniClusterExtension CLUSTER = TestClusters.withMetrics(REPORTER, 2);

  @TempDir Path dir;

  /**
   * Flink's standard metrics on the writer; the writer's and the committer's own in the group
   * {@code lance} keyed by the table ({@code
   * <operator>.<subtask>.lance.table.<path>.committedRows}).
   */
  @Test
  void reportsRecordsBytesAndCommits() throws Exception {
    String table = dir.resolve("t").toString();
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(2);
    env.enableCheckpointing(100);
    env.fromSource(TestRows.source(ROWS), WatermarkStrategy.noWatermarks(), "ids")
        .sinkTo(LanceSink.forRowData(TestRows.ROW_TYPE).path(table).build());
    JobID job = env.execute().getJobID();

    assertThat(sumOf(writerMetrics(job, "numRecordsSend"))).isEqualTo(ROWS);
    assertThat(sumOf(writerMetrics(job, "numBytesSend"))).isEqualTo(dataFileBytes(table));

    TableMetrics committer = TableMetrics.of(REPORTER, job, table).on("Committer");
    assertThat(committer.count("committedRows")).isEqualTo(ROWS);
    assertThat(committer.count("committedFragments"))
        .isEqualTo(LanceTestTables.fragmentCount(table));
    assertThat(committer.count("dedupedCommits")).isZero();
    assertThat(committer.gauges("lastCommittedVersion"))
        .contains(LanceTestTables.latestVersion(table));
    assertThat(committer.gauges("lastCommitDurationMs"))
        .anySatisfy(ms -> assertThat(ms).isNotNegative());

    // the connector's own metrics in the group lance, keyed by the table; Flink's on the operator
    TableMetrics metrics = TableMetrics.of(REPORTER, job, table);
    assertThat(metrics.on("Writer").all())
        .extracting(TableMetrics.Reported::name)
        .containsOnly("arrowPeakBytes", "bufferedRows")
        .hasSize(4); // two of each: parallelism 2
    assertThat(metrics.on("Committer").all())
        .extracting(TableMetrics.Reported::name)
        .contains("committedRows", "committedFragments", "lastCommittedVersion");
    assertThat(metrics.identifiers())
        .allSatisfy(id -> assertThat(id).contains(".lance.table." + table + "."));
    assertThat(metrics.identifiers()).noneMatch(id -> id.contains("numRecordsSend"));
    assertThat(REPORTER.findMetrics(job, "numRecordsSend").keySet())
        .isNotEmpty()
        .noneMatch(id -> id.contains(".lance."));
    assertThat(TableMetrics.prefixedNames(REPORTER, job)).isEmpty();
  }

  /** A sink with a primary key: its writer's and committer's metrics in the table's group too. */
  @Test
  void anUpsertSinkReportsItsBuffersAndReplacedRowsUnderTheTable() throws Exception {
    String table = dir.resolve("t").toString();
    upsert(table);
    JobID job = upsert(table); // the same keys again: every row replaced

    TableMetrics metrics = TableMetrics.of(REPORTER, job, table);
    assertThat(metrics.on("Writer").all())
        .extracting(TableMetrics.Reported::name)
        .containsOnly("arrowPeakBytes", "bufferedKeys", "changeBufferBytes")
        .hasSize(6); // three of each of two writers
    assertThat(metrics.on("Committer").count("removedRows")).isEqualTo(ROWS);
    assertThat(metrics.on("Committer").gauges("lastKeyLookupMs"))
        .anySatisfy(ms -> assertThat(ms).isNotNegative());
    assertThat(metrics.identifiers())
        .allSatisfy(id -> assertThat(id).contains(".lance.table." + table + "."));
    assertThat(TableMetrics.prefixedNames(REPORTER, job)).isEmpty();
  }

  private static JobID upsert(String table) throws Exception {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(2);
    env.fromSource(TestRows.source(ROWS), WatermarkStrategy.noWatermarks(), "ids")
        .sinkTo(LanceSink.forRowData(TestRows.ROW_TYPE).path(table).primaryKey("id").build());
    return env.execute().getJobID();
  }

  /**
   * A 2 MB buffer over ~5 MB of vectors: the writer streams every batch into ONE fragment file
   * (there is a single commit at the end of input), its Arrow memory stays about the limit (what
   * Lance keeps of the batches it encodes is Lance's: 2.13 MB measured), and every row arrives
   * once.
   */
  @Test
  void writerStreamsIntoOneFileWithinMaxBufferSize() throws Exception {
    String table = dir.resolve("t").toString();
    long maxBuffer = 2 << 20;
    int rows = 20_000;
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(1);
    env.fromSequence(0, rows - 1)
        .map(VectorRows::row)
        .returns(VectorRows.TYPE_INFO)
        .sinkTo(
            LanceSink.forRowData(VectorRows.TYPE)
                .path(table)
                .vectorColumn("embedding", VectorRows.DIMENSION)
                .maxBufferBytes(maxBuffer)
                .build());
    JobID job = env.execute().getJobID();

    assertThat(LanceTestTables.readLongs(table, "id")).hasSize(rows).doesNotHaveDuplicates();
    long dataBytes = rows * (8L + VectorRows.DIMENSION * 4L);
    assertThat(dataBytes).as("more data than the buffer holds").isGreaterThan(2 * maxBuffer);
    assertThat(LanceTestTables.fragmentCount(table)).as("one fragment file").isEqualTo(1);
    assertThat(TableMetrics.of(REPORTER, job, table).on("Writer").gauges("arrowPeakBytes"))
        .singleElement()
        .satisfies(bytes -> assertThat(bytes).isBetween(1L, maxBuffer * 5 / 4));
  }

  @Test
  void skippedInvalidRecordsAreCountedAndTheOthersWritten() throws Exception {
    String table = dir.resolve("t").toString();
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(2);
    env.fromSource(TestRows.source(ROWS), WatermarkStrategy.noWatermarks(), "ids")
        .map(PoisonedRows::poison)
        .returns(TestRows.TYPE_INFO)
        .sinkTo(
            LanceSink.forRowData(TestRows.ROW_TYPE)
                .path(table)
                .set(LanceSinkOptions.SINK_ON_INVALID_RECORD, InvalidRecordPolicy.SKIP)
                .build());
    JobID job = env.execute().getJobID();

    assertThat(LanceTestTables.readLongs(table, "id"))
        .containsExactlyInAnyOrderElementsOf(PoisonedRows.goodIds(ROWS));
    assertThat(sumOf(writerMetrics(job, "numRecordsSendErrors")))
        .isEqualTo(PoisonedRows.poisoned(ROWS))
        .isGreaterThan(1);
  }

  /**
   * No metric of the sink's operators collides with another: every "Name collision" WARN of a
   * checkpointing job, appending and with a primary key, is the one Flink 2.1 to 2.3 log for their
   * own committer operator at every checkpoint ({@code CommitterOperator.snapshotState} copies its
   * {@code CommittableCollector}, whose constructor registers the {@code pendingCommittables} gauge
   * again: FLINK-35321), which no sink can prevent.
   */
  @Test
  void theOnlyMetricCollisionIsFlinksOwnCommitterGauge() throws Exception {
    String text;
    try (LogCapture log = LogCapture.start()) {
      for (boolean primaryKey : new boolean[] {false, true}) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(100);
        LanceSinkBuilder<RowData> sink =
            LanceSink.forRowData(TestRows.ROW_TYPE).path(dir.resolve("t" + primaryKey).toString());
        env.fromSource(
                TestRows.source(ROWS, RateLimiterStrategy.perCheckpoint(1_000)),
                WatermarkStrategy.noWatermarks(),
                "ids")
            .sinkTo(primaryKey ? sink.primaryKey("id").build() : sink.build());
        env.execute();
      }
      text = log.text();
    }
    assertThat(text.lines().filter(line -> line.contains("Name collision")))
        .as(
            "Flink's own WARN: once a Flink version no longer logs it, drop troubleshooting.md's note")
        .isNotEmpty()
        .allSatisfy(
            line ->
                assertThat(line)
                    .contains("a Metric with the name 'pendingCommittables'")
                    .contains("Sink: Committer"));
  }

  /** id BIGINT, embedding ARRAY<FLOAT> of 64 dimensions. */
  static final class VectorRows {
    static final int DIMENSION = 64;
    static final RowType TYPE =
        (RowType)
            DataTypes.ROW(
                    DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
                    DataTypes.FIELD("embedding", DataTypes.ARRAY(DataTypes.FLOAT().notNull())))
                .notNull()
                .getLogicalType();
    static final InternalTypeInfo<RowData> TYPE_INFO = InternalTypeInfo.of(TYPE);

    static RowData row(long id) {
      float[] vector = new float[DIMENSION];
      java.util.Arrays.fill(vector, id);
      return GenericRowData.of(id, new GenericArrayData(vector));
    }
  }

  private static Stream<Metric> writerMetrics(JobID job, String name) {
    return REPORTER.findMetrics(job, name).entrySet().stream()
        .filter(e -> e.getKey().contains("Writer"))
        .map(Map.Entry::getValue);
  }

  private static long sumOf(Stream<Metric> metrics) {
    return metrics.mapToLong(m -> ((Counter) m).getCount()).sum();
  }

  private static long dataFileBytes(String table) throws Exception {
    try (Stream<Path> files = Files.list(Path.of(table, "data"))) {
      return files.mapToLong(p -> p.toFile().length()).sum();
    }
  }
}
