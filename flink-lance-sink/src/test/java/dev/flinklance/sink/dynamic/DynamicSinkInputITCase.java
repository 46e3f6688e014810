package dev.flinklance.sink.dynamic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestClusters;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * What users will try with the dynamic sink: BATCH execution, records whose schema cannot be
 * reconciled with their table, records that disagree on a table's key, names that are not plain
 * path segments. Bad input fails the job naming the table and the column or name, and commits
 * nothing.
 */
class DynamicSinkInputITCase {
  private static final RowType TEXT =
      RowType.of(
          new LogicalType[] {new BigIntType(false), new VarCharType(VarCharType.MAX_LENGTH)},
          new String[] {"id", "v"});

  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @TempDir Path dir;

  @Test
  void batchExecutionWritesEveryTableOnce() throws Exception {
    ManyTables records = new ManyTables(10, 10 * 60L, 20, 30);
    List<DynamicRecord> all = new ArrayList<>();
    for (long i = 0; i < 10 * 60L; i++) {
      all.add(records.record(i));
    }
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setRuntimeMode(RuntimeExecutionMode.BATCH);
    env.setParallelism(2);
    env.fromData(all).sinkTo(DynamicLanceSink.builder().warehouse(warehouse()).build());
    env.execute();

    records
        .model()
        .forEach(
            (table, rows) -> {
              String uri = uri(table);
              assertThat(ManyTables.rows(uri)).as(table).isEqualTo(rows);
              assertThat(LanceTestTables.sinkCommits(uri)).as(table).hasSize(1);
            });
  }

  /**
   * Rows of 20 KB into 8 tables with a 4 MB budget for all of them: tables finish their files and
   * close mid-checkpoint, and every row lands once.
   */
  @Test
  void tablesPastTheMemoryBudgetFinishTheirFilesAndLoseNothing() throws Exception {
    String payload = "x".repeat(20_000);
    List<DynamicRecord> records = new ArrayList<>();
    for (long i = 0; i < 8 * 250; i++) {
      records.add(
          DynamicRecord.append(
              "db",
              "big" + (i % 8),
              ManyTables.WIDE,
              GenericRowData.of(i, i, StringData.fromString(payload))));
    }
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(1);
    env.fromData(records)
        .sinkTo(
            DynamicLanceSink.builder()
                .warehouse(warehouse())
                .option("sink.dynamic.max-buffer-size", "4 mb")
                .build());
    env.execute();

    int fragments = 0;
    for (int t = 0; t < 8; t++) {
      long table = t;
      List<Long> ids = LanceTestTables.readLongs(uri("big" + t), "id");
      assertThat(ids).hasSize(250).doesNotHaveDuplicates().allMatch(id -> id % 8 == table);
      assertThat(LanceTestTables.sinkCommits(uri("big" + t))).hasSize(1);
      fragments += LanceTestTables.fragmentCount(uri("big" + t));
    }
    assertThat(fragments).as("tables finished files before the end").isGreaterThan(8);
  }

  /** VARCHAR(n) into STRING, INT into BIGINT: the table keeps its types, the values are exact. */
  @Test
  void recordsOfNarrowerOrEquallyStoredTypesAreWritten() throws Exception {
    RowType narrow =
        RowType.of(
            new LogicalType[] {new IntType(false), new IntType(), new VarCharType(5)},
            new String[] {"id", "v", "note"});
    List<DynamicRecord> records =
        List.of(
            DynamicRecord.append(
                "db", "w", ManyTables.WIDE, GenericRowData.of(1L, 10L, StringData.fromString("a"))),
            DynamicRecord.append(
                "db", "w", narrow, GenericRowData.of(2, 20, StringData.fromString("b"))));
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(1);
    env.fromData(records).sinkTo(DynamicLanceSink.builder().warehouse(warehouse()).build());
    env.execute();

    assertThat(ManyTables.rows(uri("w")))
        .containsOnly(
            org.assertj.core.api.Assertions.entry(1L, List.of(1L, 10L, "a")),
            org.assertj.core.api.Assertions.entry(2L, List.of(2L, 20L, "b")));
  }

  /**
   * A table that exists with wider types (an earlier job's, or another client's) takes a new job's
   * narrower records, the first one among them: the table's types are where a writer starts.
   */
  @Test
  void anExistingTableOfWiderTypesTakesNarrowerRecords() throws Exception {
    StreamExecutionEnvironment first = StreamExecutionEnvironment.getExecutionEnvironment();
    first
        .fromData(
            DynamicRecord.append(
                "db", "w", ManyTables.WIDE, GenericRowData.of(1L, 10L, StringData.fromString("a"))))
        .sinkTo(DynamicLanceSink.builder().warehouse(warehouse()).build());
    first.execute();

    RowType narrow =
        RowType.of(new LogicalType[] {new IntType(false), new IntType()}, new String[] {"id", "v"});
    StreamExecutionEnvironment second = StreamExecutionEnvironment.getExecutionEnvironment();
    second.setParallelism(1);
    second
        .fromData(
            DynamicRecord.append("db", "w", narrow, GenericRowData.of(2, 20)),
            DynamicRecord.append("db", "w", narrow, GenericRowData.of(3, 30)))
        .sinkTo(DynamicLanceSink.builder().warehouse(warehouse()).build());
    second.execute();

    assertThat(ManyTables.rows(uri("w")))
        .containsOnly(
            org.assertj.core.api.Assertions.entry(1L, List.of(1L, 10L, "a")),
            org.assertj.core.api.Assertions.entry(2L, Arrays.asList(2L, 20L, null)),
            org.assertj.core.api.Assertions.entry(3L, Arrays.asList(3L, 30L, null)));
  }

  @Test
  void aColumnOfAnotherTypeFailsNamingTableAndColumn() {
    List<DynamicRecord> records =
        List.of(
            DynamicRecord.append("db", "t", ManyTables.NARROW, GenericRowData.of(1L, 1L)),
            DynamicRecord.append(
                "db", "t", TEXT, GenericRowData.of(2L, StringData.fromString("two"))));

    assertThat(failureOf(records))
        .contains("Column 'v'", uri("t"), "BIGINT", "STRING", "cannot change");
    assertThat(LanceTestTables.sinkCommits(uri("t"))).as("nothing committed").isEmpty();
  }

  @Test
  void recordsDisagreeingOnTheKeyFailNamingTheTable() {
    GenericRowData row = GenericRowData.of(1L, 1L);
    List<DynamicRecord> records =
        List.of(
            DynamicRecord.change("db", "k", ManyTables.NARROW, row, List.of("id")),
            DynamicRecord.append("db", "k", ManyTables.NARROW, GenericRowData.of(2L, 2L)));

    assertThat(failureOf(records)).contains(uri("k"), "disagree on its primary key", "[id]");
    assertThat(LanceTestTables.sinkCommits(uri("k"))).as("nothing committed").isEmpty();
  }

  @Test
  void aNameThatIsNotOnePathSegmentFailsNamingIt() {
    List<DynamicRecord> records =
        List.of(
            DynamicRecord.append("db", "../escape", ManyTables.NARROW, GenericRowData.of(1L, 1L)));

    assertThat(failureOf(records)).contains("Invalid Lance table name '../escape'");
    assertThat(dir.resolve("escape.lance")).doesNotExist();
  }

  @Test
  void underSkipRecordsTheirTableCannotTakeAreLeftOutAndTheRestLands() throws Exception {
    List<DynamicRecord> records =
        List.of(
            DynamicRecord.append("db", "t", ManyTables.NARROW, GenericRowData.of(1L, 1L)),
            DynamicRecord.append(
                "db", "t", TEXT, GenericRowData.of(2L, StringData.fromString("two"))),
            DynamicRecord.change(
                "db", "t", ManyTables.NARROW, GenericRowData.of(3L, 3L), List.of("id")),
            DynamicRecord.append("db", "a/b", ManyTables.NARROW, GenericRowData.of(4L, 4L)),
            DynamicRecord.append("db", "t", ManyTables.NARROW, GenericRowData.of(5L, 5L)));
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(1);
    env.fromData(records)
        .sinkTo(
            DynamicLanceSink.builder()
                .warehouse(warehouse())
                .option("sink.on-invalid-record", "skip")
                .build());
    env.execute();

    assertThat(LanceTestTables.readLongs(uri("t"), "id")).containsExactlyInAnyOrder(1L, 5L);
    assertThat(dir.resolve("warehouse/db/a")).doesNotExist();
  }

  @Test
  void badOptionsFailWhenTheSinkIsBuilt() {
    assertThatThrownBy(() -> DynamicLanceSink.builder().build())
        .hasMessageContaining("'warehouse'");
    assertThatThrownBy(
            () ->
                DynamicLanceSink.builder()
                    .warehouse(warehouse())
                    .option("sink.dynamic.max-open-tables", "0")
                    .build())
        .hasMessageContaining("'sink.dynamic.max-open-tables'");
    assertThatThrownBy(
            () ->
                DynamicLanceSink.builder()
                    .warehouse(warehouse())
                    .option("sink.max-buffer-size", "1 kb")
                    .build())
        .hasMessageContaining("'sink.max-buffer-size'");
  }

  private String failureOf(List<DynamicRecord> records) {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(1);
    env.fromData(records).sinkTo(DynamicLanceSink.builder().warehouse(warehouse()).build());
    Throwable failure = null;
    try {
      env.execute();
    } catch (Exception e) {
      failure = e;
    }
    assertThat(failure).as("the job failed").isNotNull();
    return ExceptionUtils.stringifyException(failure);
  }

  private String warehouse() {
    return dir.resolve("warehouse").toString();
  }

  private String uri(String table) {
    return warehouse() + "/db/" + table + ".lance";
  }
}
