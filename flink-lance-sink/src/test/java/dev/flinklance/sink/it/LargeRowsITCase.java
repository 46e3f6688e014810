package dev.flinklance.sink.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.sink.LanceSink;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TableMetrics;
import dev.flinklance.testing.TestClusters;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Rows of large values (documents, images as BYTES): a sink with a primary key takes them
 * checkpoint after checkpoint with its default buffers, and an appending writer's batches stay
 * within {@code sink.max-buffer-size}. Batches sized in rows of the last row's bytes once took 40
 * MB for a 40 KB value and 1 GB for a 1 MB one.
 */
class LargeRowsITCase {
  private static final RowType ROW_TYPE =
      (RowType)
          DataTypes.ROW(
                  DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
                  DataTypes.FIELD("payload", DataTypes.BYTES()))
              .notNull()
              .getLogicalType();
  private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

  @RegisterExtension
  static final MiniClusterExtension CLUSTER = TestClusters.withMetrics(REPORTER, 2);

  @TempDir Path dir;

  @ParameterizedTest(name = "{0} B values, {1} changes")
  @CsvSource({"40000, 300", "1000000, 45"})
  void anUpsertSinkTakesLargeRowsWithItsDefaultBuffers(int valueBytes, int changes)
      throws Exception {
    String table = dir.resolve("t").toString();
    Changes generator = new Changes(valueBytes, changes / 3);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(1);
    env.enableCheckpointing(50);
    env.fromSource(
            new DataGeneratorSource<>(
                generator,
                changes,
                RateLimiterStrategy.perCheckpoint(15),
                InternalTypeInfo.of(ROW_TYPE)),
            WatermarkStrategy.noWatermarks(),
            "changes")
        .sinkTo(LanceSink.forRowData(ROW_TYPE).path(table).primaryKey("id").build());
    env.execute();

    Map<Long, String> expected = new TreeMap<>();
    for (long i = 0; i < changes; i++) {
      RowData change = generator.map(i);
      expected.put(change.getLong(0), describe(change.getBinary(1)));
    }
    assertThat(tableRows(table)).isEqualTo(expected);
    assertThat(LanceTestTables.sinkCommits(table)).hasSizeGreaterThan(2);
  }

  @ParameterizedTest(name = "{0} B values")
  @CsvSource({"40000, 150", "200000, 40"})
  void anAppendingWritersBatchesStayWithinItsBuffer(int valueBytes, int rows) throws Exception {
    String table = dir.resolve("t").toString();
    long maxBuffer = 2 << 20;
    Changes generator = new Changes(valueBytes, rows);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(1);
    env.fromSource(
            new DataGeneratorSource<>(
                generator, rows, RateLimiterStrategy.noOp(), InternalTypeInfo.of(ROW_TYPE)),
            WatermarkStrategy.noWatermarks(),
            "rows")
        .sinkTo(LanceSink.forRowData(ROW_TYPE).path(table).maxBufferBytes(maxBuffer).build());
    JobID job = env.execute().getJobID();

    Map<Long, String> expected = new TreeMap<>();
    for (long i = 0; i < rows; i++) {
      expected.put(i, describe(generator.map(i).getBinary(1)));
    }
    assertThat(tableRows(table)).isEqualTo(expected);
    assertThat((long) valueBytes * rows).as("more data than the buffer").isGreaterThan(maxBuffer);
    assertThat(TableMetrics.of(REPORTER, job, table).on("Writer").gauges("arrowPeakBytes"))
        .singleElement()
        .satisfies(bytes -> assertThat(bytes).isBetween(1L, maxBuffer * 5 / 4 + valueBytes));
  }

  private static Map<Long, String> tableRows(String table) {
    Map<Long, String> rows = new TreeMap<>();
    for (List<Object> row : LanceTestTables.readColumns(table, List.of("id", "payload"))) {
      assertThat(rows.put((Long) row.get(0), describe((byte[]) row.get(1))))
          .as("one row per id")
          .isNull();
    }
    return rows;
  }

  /** A value's length and a digest of its bytes: exact, and short in a failure message. */
  private static String describe(byte[] value) {
    return value.length + " bytes, hash " + Arrays.hashCode(value);
  }

  /** Change {@code i}: key {@code i % keys}, a value of {@code bytes} bytes that only it has. */
  private record Changes(int bytes, int keys) implements GeneratorFunction<Long, RowData> {
    @Override
    public RowData map(Long i) {
      byte[] value = new byte[bytes];
      for (int at = 0; at < bytes; at += 997) {
        value[at] = (byte) (i * 31 + at);
      }
      value[bytes - 1] = (byte) (long) i;
      return GenericRowData.of(i % keys, value);
    }
  }
}
