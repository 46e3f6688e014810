package dev.flinklance.source.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.errors.LanceDatasetException;
import dev.flinklance.sink.LanceSink;
import dev.flinklance.source.LanceSource;
import dev.flinklance.testing.Failures;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestClusters;
import dev.flinklance.testing.TestRows;
import dev.flinklance.testing.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.LongStream;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The FLIP-27 source from the DataStream API: exact content, pushdown, versions, failures. */
class LanceSourceITCase {
  private static final int ROWS = 10_000;

  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @TempDir Path dir;

  private String table;

  private String writeTable(int rows, int rowsPerFragment) {
    table = dir.resolve("events").toString();
    TestTables.write(table, TestRows.ROW_TYPE, rows(0, rows), rowsPerFragment);
    return table;
  }

  private static List<RowData> rows(long from, long to) {
    return LongStream.range(from, to).mapToObj(TestRows::row).toList();
  }

  @ParameterizedTest(name = "parallelism {0}")
  @ValueSource(ints = {1, 3})
  void readsEveryRowOnce(int parallelism) throws Exception {
    writeTable(ROWS, 1_300);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(parallelism);
    LanceSource source = LanceSource.builder().path(table).batchSize(500).build();

    assertThat(collect(env.fromSource(source, WatermarkStrategy.noWatermarks(), "lance")))
        .containsExactlyInAnyOrderElementsOf(expected(0, ROWS));
  }

  @Test
  void projectsFiltersAndLimitsInLance() throws Exception {
    writeTable(ROWS, 1_000);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(2);
    LanceSource source =
        LanceSource.builder()
            .path(table)
            .columns("name", "id")
            .filter("id % 1000 < 3")
            .limitPerSplit(2)
            .build();

    assertThat(source.rowType().getFieldNames()).containsExactly("name", "id");
    List<String> rows = new ArrayList<>();
    try (CloseableIterator<RowData> it =
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "lance").executeAndCollect()) {
      it.forEachRemaining(row -> rows.add(row.getString(0) + "/" + row.getLong(1)));
    }
    // ten fragments of 1000 rows, each with ids ending in 000, 001, 002: two per fragment
    List<String> expected = new ArrayList<>();
    for (long fragment = 0; fragment < 10; fragment++) {
      expected.add("name-" + fragment * 1000 + "/" + fragment * 1000);
      expected.add("name-" + (fragment * 1000 + 1) + "/" + (fragment * 1000 + 1));
    }
    assertThat(rows).containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  void readsThePinnedVersion() throws Exception {
    writeTable(100, 100); // version 2
    TestTables.append(table, TestRows.ROW_TYPE, rows(100, 150), 50); // version 3
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();

    LanceSource atTwo = LanceSource.builder().path(table).version(2).build();
    assertThat(collect(env.fromSource(atTwo, WatermarkStrategy.noWatermarks(), "v2")))
        .containsExactlyInAnyOrderElementsOf(expected(0, 100));

    // The latest version is pinned when the job starts, not when the source is built.
    LanceSource latest = LanceSource.builder().path(table).build();
    TestTables.append(table, TestRows.ROW_TYPE, rows(150, 160), 10); // version 4
    assertThat(collect(env.fromSource(latest, WatermarkStrategy.noWatermarks(), "latest")))
        .containsExactlyInAnyOrderElementsOf(expected(0, 160));
  }

  @Test
  void failsAtBuildForBadInput() {
    writeTable(10, 10);
    assertThatThrownBy(() -> LanceSource.builder().build()).hasMessageContaining("'path'");
    assertThatThrownBy(() -> LanceSource.builder().path(dir.resolve("nothing").toString()).build())
        .isInstanceOf(LanceDatasetException.class)
        .hasMessageContaining("nothing");
    assertThatThrownBy(() -> LanceSource.builder().path(table).columns("id", "nope").build())
        .hasMessageContaining("Column 'nope' does not exist");
    assertThatThrownBy(() -> LanceSource.builder().path(table).version(9).build())
        .isInstanceOf(LanceDatasetException.class)
        .hasMessageContaining("version 9");
    assertThatThrownBy(() -> LanceSource.builder().path(table).version(1).tag("t").build())
        .hasMessageContaining("'scan.tag'");
  }

  /**
   * A filter's string literals may hold any character (JNI would mangle NUL and characters outside
   * the Basic Multilingual Plane); a filter that could overflow Lance's planner fails at build.
   */
  @Test
  void filterLiteralsMayHoldAnyCharacter() throws Exception {
    table = dir.resolve("names").toString();
    String[] names = {"smile 😀", "x😀y", "plain", "a\u0000b"};
    List<RowData> rows = new ArrayList<>();
    for (int n = 0; n < 40; n++) {
      rows.add(GenericRowData.of((long) n, StringData.fromString(names[n % names.length])));
    }
    TestTables.write(table, TestRows.ROW_TYPE, rows, 10);
    LanceSource source =
        LanceSource.builder()
            .path(table)
            .filter("name = 'smile 😀' OR name LIKE 'x😀%' OR name = 'a\u0000b'")
            .build();

    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    assertThat(collect(env.fromSource(source, WatermarkStrategy.noWatermarks(), "lance")))
        .containsExactlyInAnyOrderElementsOf(
            LongStream.range(0, 40)
                .filter(n -> n % names.length != 2)
                .mapToObj(n -> n + "/" + names[(int) n % names.length])
                .toList());

    String chain =
        String.join(" OR ", LongStream.range(0, 400).mapToObj(n -> "id = " + n).toList());
    assertThatThrownBy(() -> LanceSource.builder().path(table).filter(chain).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("IN lists");
  }

  /**
   * A reader fails mid-fragment after a checkpoint; the job restores and finishes. The rows go
   * through the exactly-once sink into a second table: a source that re-read rows emitted before
   * the checkpoint would duplicate them there, one that skipped rows would lose them.
   */
  @Test
  void restoresMidFragmentWithoutDuplicatesOrLoss() throws Exception {
    writeTable(ROWS, 2_500);
    String copy = dir.resolve("copy").toString();
    String token = UUID.randomUUID().toString();
    Configuration config = new Configuration();
    config.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 1);
    config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(10));
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
    env.setParallelism(2);
    env.enableCheckpointing(50);

    LanceSource source = LanceSource.builder().path(table).batchSize(100).build();
    env.fromSource(source, WatermarkStrategy.noWatermarks(), "lance")
        .map(new Throttle())
        .returns(TestRows.TYPE_INFO)
        .map(new Failures.FailAfterCheckpoint<>(token, 1))
        .returns(TestRows.TYPE_INFO)
        .sinkTo(LanceSink.forRowData(TestRows.ROW_TYPE).path(copy).build());
    env.execute();

    assertThat(Failures.fired(token)).as("the injected failure happened").isTrue();
    assertThat(LanceTestTables.readLongs(copy, "id"))
        .containsExactlyInAnyOrderElementsOf(LongStream.range(0, ROWS).boxed().toList());
  }

  /** Slows the read down so that checkpoints complete while fragments are half read. */
  private static final class Throttle implements MapFunction<RowData, RowData> {
    private static final long serialVersionUID = 1L;
    private long seen;

    @Override
    public RowData map(RowData row) throws Exception {
      if (++seen % 10 == 0) {
        Thread.sleep(1);
      }
      return row;
    }
  }

  private static List<String> collect(DataStream<RowData> stream) throws Exception {
    List<String> rows = new ArrayList<>();
    try (CloseableIterator<RowData> it = stream.executeAndCollect()) {
      it.forEachRemaining(row -> rows.add(row.getLong(0) + "/" + row.getString(1)));
    }
    return rows;
  }

  private static List<String> expected(long from, long to) {
    return LongStream.range(from, to).mapToObj(id -> id + "/name-" + id).toList();
  }
}
