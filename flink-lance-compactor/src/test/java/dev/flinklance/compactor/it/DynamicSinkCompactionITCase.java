package dev.flinklance.compactor.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.sink.dynamic.DynamicLanceSink;
import dev.flinklance.sink.dynamic.DynamicRecord;
import dev.flinklance.sink.dynamic.DynamicRecordTypeInfo;
import dev.flinklance.testing.Failures;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestClusters;
import java.io.Serializable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dynamic sink with {@code compaction.enabled}: every table it writes is compacted in the job,
 * tables with a primary key (whose upserts delete rows) and appended ones alike, through a failure
 * of the job, and at the end of a bounded job. Each table ends equal to its model row by row, with
 * compactions in its own history.
 */
class DynamicSinkCompactionITCase {
  private static final int TABLES = 6;

  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withFlinksRestarts();

  @TempDir Path dir;

  @Test
  void everyTableIsCompactedInTheJobThroughAFailure() throws Exception {
    Tables tables = new Tables(TABLES, 12_000, 40);
    String failure = UUID.randomUUID().toString();
    DynamicLanceSink sink =
        DynamicLanceSink.builder()
            .warehouse(dir.toString())
            .option("stable-row-ids", "true")
            .option("compaction.enabled", "true")
            .option("compaction.trigger.small-fragments", "6")
            .option("compaction.cleanup-older-than", "1 h")
            .option("compaction.parallelism", "2")
            .build();
    StreamExecutionEnvironment env =
        StreamExecutionEnvironment.getExecutionEnvironment(TestClusters.threeRestarts());
    env.setParallelism(2);
    env.enableCheckpointing(100);
    env.fromSource(
            tables.source(RateLimiterStrategy.perCheckpoint(60)),
            WatermarkStrategy.noWatermarks(),
            "records")
        .setParallelism(1)
        .map(new Failures.FailAfterCheckpoint<DynamicRecord>(failure, 60))
        .setParallelism(1)
        .returns(new DynamicRecordTypeInfo())
        .sinkTo(sink)
        .uid("dynamic-sink");
    env.execute();

    assertThat(Failures.fired(failure)).as("failure injected").isTrue();
    for (int t = 0; t < TABLES; t++) {
      String uri = tables.uri(dir, t);
      assertThat(Tables.rows(uri)).as("rows of %s", uri).isEqualTo(tables.model().get(t));
      List<LanceTestTables.Commit> commits = LanceTestTables.commits(uri);
      long sinkCommits = commits.stream().filter(c -> c.checkpointId() != null).count();
      long compactions = commits.stream().filter(c -> c.operation().equals("Rewrite")).count();
      int fragments = LanceTestTables.fragmentCount(uri);
      System.out.printf(
          "%s: %d sink commits, %d compactions, %d fragments at the end%n",
          Tables.name(t), sinkCommits, compactions, fragments);
      assertThat(sinkCommits).as("checkpoints committed to %s", uri).isGreaterThanOrEqualTo(100);
      assertThat(compactions).as("compactions of %s", uri).isPositive();
      assertThat(fragments).as("fragments of %s", uri).isLessThan((int) sinkCommits / 4);
    }
  }

  /** A bounded job commits each table once, at its end; the compaction runs before the job ends. */
  @Test
  void aBoundedJobCompactsItsTablesBeforeItEnds() throws Exception {
    Tables tables = new Tables(4, 4_000, 100);
    DynamicLanceSink sink =
        DynamicLanceSink.builder()
            .warehouse(dir.toString())
            .option("sink.max-rows-per-file", "50")
            .option("compaction.enabled", "true")
            .option("compaction.trigger.small-fragments", "2")
            .build();
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setRuntimeMode(RuntimeExecutionMode.BATCH);
    env.setParallelism(2);
    env.fromSource(
            tables.source(RateLimiterStrategy.noOp()), WatermarkStrategy.noWatermarks(), "records")
        .setParallelism(1) // the model's order of each key's changes
        .sinkTo(sink);
    env.execute();

    for (int t = 0; t < 4; t++) {
      String uri = tables.uri(dir, t);
      assertThat(Tables.rows(uri)).as("rows of %s", uri).isEqualTo(tables.model().get(t));
      List<String> operations =
          LanceTestTables.commits(uri).stream().map(LanceTestTables.Commit::operation).toList();
      assertThat(operations).as("operations on %s", uri).endsWith("Rewrite");
      if (!Tables.keyed(t)) {
        assertThat(LanceTestTables.fragmentCount(uri)).as("fragments of %s", uri).isEqualTo(1);
      }
    }
  }

  /**
   * Record {@code i} goes to table {@code i % tables}. Even tables have a primary key {@code id}
   * and get changes of {@code keys} keys (every 5th a delete); odd tables get appended rows.
   */
  private record Tables(int tables, long count, int keys) implements Serializable {
    static final RowType ROW_TYPE =
        RowType.of(
            new LogicalType[] {new BigIntType(false), new BigIntType()}, new String[] {"id", "v"});

    static String name(int table) {
      return "t" + table;
    }

    static boolean keyed(int table) {
      return table % 2 == 0;
    }

    String uri(Path warehouse, int table) {
      return warehouse.resolve("db").resolve(name(table) + ".lance").toString();
    }

    DynamicRecord record(long i) {
      int table = (int) (i % tables);
      long j = i / tables;
      if (!keyed(table)) {
        return DynamicRecord.append("db", name(table), ROW_TYPE, GenericRowData.of(j, i));
      }
      GenericRowData row = GenericRowData.of(Math.floorMod(j * 7919 + table, (long) keys), i);
      row.setRowKind(j % 5 == 4 ? RowKind.DELETE : RowKind.UPDATE_AFTER);
      return DynamicRecord.change("db", name(table), ROW_TYPE, row, List.of("id"));
    }

    DataGeneratorSource<DynamicRecord> source(RateLimiterStrategy rateLimit) {
      return new DataGeneratorSource<>(this::record, count, rateLimit, new DynamicRecordTypeInfo());
    }

    /** Each table's rows: v by id. */
    List<Map<Long, Long>> model() {
      List<Map<Long, Long>> model = new ArrayList<>();
      for (int t = 0; t < tables; t++) {
        model.add(new HashMap<>());
      }
      for (long i = 0; i < count; i++) {
        DynamicRecord record = record(i);
        Map<Long, Long> rows = model.get((int) (i % tables));
        if (record.row().getRowKind() == RowKind.DELETE) {
          rows.remove(record.row().getLong(0));
        } else {
          rows.put(record.row().getLong(0), record.row().getLong(1));
        }
      }
      return model;
    }

    /** A table's rows: v by id; fails on an id twice. */
    static Map<Long, Long> rows(String uri) {
      Map<Long, Long> rows = new HashMap<>();
      for (List<Object> row : LanceTestTables.readColumns(uri, List.of("id", "v"))) {
        if (rows.put((Long) row.get(0), (Long) row.get(1)) != null) {
          throw new AssertionError("id " + row.get(0) + " twice in " + uri);
        }
      }
      return rows;
    }
  }
}
