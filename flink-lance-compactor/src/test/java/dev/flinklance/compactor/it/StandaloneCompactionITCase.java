package dev.flinklance.compactor.it;

import static dev.flinklance.compactor.testing.LineageTables.append;
import static dev.flinklance.compactor.testing.LineageTables.createStable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.access.TableRef;
import dev.flinklance.compactor.LanceCompactionJob;
import dev.flinklance.compactor.commit.CompactionSummary;
import dev.flinklance.compactor.lineage.RowIdMetaJson;
import dev.flinklance.compactor.lineage.SideFileSpill;
import dev.flinklance.compactor.testing.LineageTables;
import dev.flinklance.files.TableFiles;
import dev.flinklance.sink.LanceSink;
import dev.flinklance.testing.Await;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestClusters;
import dev.flinklance.testing.TestRows;
import dev.flinklance.testing.TestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.util.Text;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.lance.Dataset;

/**
 * {@link LanceCompactionJob}: one pass on a table written by plain Lance, bad arguments, a running
 * sink.
 */
class StandaloneCompactionITCase {
  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withFlinksRestarts();

  @TempDir Path dir;

  @Test
  void oncePassCompactsATableWrittenByPlainLanceAndCleansUp() throws Exception {
    String table = dir.resolve("plain").toString();
    createStable(table);
    append(table, 0, 3_000, 12);
    LineageTables.update(table, List.of(5L, 500L, 2_500L));
    LineageTables.delete(table, "id % 10 = 0");
    LineageTables.setConfig(
        table,
        Map.of("lance.row_lineage.spill", "true", "lance.row_lineage.inline_max_bytes", "8"));
    Map<Long, List<Object>> before = LineageTables.rowsByRowId(table);
    long versionsBefore = LanceTestTables.latestVersion(table);

    LanceCompactionJob.main(new String[] {"--path", table, "--once", "--cleanup-older-than", "0s"});

    assertThat(LanceTestTables.fragmentCount(table)).isEqualTo(1);
    assertThat(LineageTables.rowsByRowId(table)).isEqualTo(before);
    assertThat(LineageTables.sideFiles(table)).hasSize(1);
    assertThat(LanceTestTables.latestVersion(table)).isGreaterThan(versionsBefore);
    assertThat(versions(table)).as("versions left by cleanup").isEqualTo(1);
  }

  /**
   * Fragments with different column sets (rows appended before and after another client added a
   * column) compact into one holding every row as it was: the column NULL in the older rows.
   */
  @Test
  void compactsFragmentsWrittenBeforeAndAfterAColumnWasAdded() throws Exception {
    String table = dir.resolve("evolved").toString();
    TestTables.create(table, TestRows.ROW_TYPE, Map.of());
    TestTables.append(
        table, TestRows.ROW_TYPE, LongStream.range(0, 50).mapToObj(TestRows::row).toList(), 5);
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = new TableRef(table, Map.of()).open(allocator)) {
      dataset.addColumns(
          List.of(new Field("extra", FieldType.nullable(new ArrowType.Int(64, true)), null)));
    }
    RowType withExtra =
        new RowType(
            List.of(
                TestRows.ROW_TYPE.getFields().get(0),
                TestRows.ROW_TYPE.getFields().get(1),
                new RowType.RowField("extra", new BigIntType())));
    TestTables.append(
        table,
        withExtra,
        LongStream.range(50, 100)
            .<RowData>mapToObj(
                id -> GenericRowData.of(id, StringData.fromString("name-" + id), id * 10))
            .toList(),
        5);
    List<String> columns = List.of("id", "name", "extra");
    List<List<Object>> expected =
        LongStream.range(0, 100)
            .<List<Object>>mapToObj(id -> Arrays.asList(id, "name-" + id, id < 50 ? null : id * 10))
            .toList();
    assertThat(sortedById(LanceTestTables.readColumns(table, columns))).isEqualTo(expected);
    assertThat(LanceTestTables.fragmentCount(table)).isEqualTo(20);

    LanceCompactionJob.main(new String[] {"--path", table, "--once"});

    assertThat(LanceTestTables.fragmentCount(table)).isEqualTo(1);
    assertThat(sortedById(LanceTestTables.readColumns(table, columns))).isEqualTo(expected);
  }

  /** Rows in id order, strings as Java strings (Arrow reads them as its Text). */
  private static List<List<Object>> sortedById(List<List<Object>> rows) {
    return rows.stream()
        .map(row -> row.stream().map(v -> v instanceof Text ? v.toString() : v).toList())
        .sorted(Comparator.comparingLong(row -> (Long) row.get(0)))
        .toList();
  }

  /** Unreferenced side files younger than --side-file-min-age (default 1 h) survive cleanup. */
  @Test
  void cleanupKeepsYoungSideFilesUnlessTheMinimumAgeSaysOtherwise() throws Exception {
    String table = dir.resolve("orphans").toString();
    createStable(table);
    append(table, 0, 100, 1);
    try (TableFiles files = TableFiles.of(new TableRef(table, Map.of())).orElseThrow()) {
      files.write(SideFileSpill.PREFIX + "orphan.bin", new byte[] {1, 2, 3});
    }

    LanceCompactionJob.main(new String[] {"--path", table, "--once", "--cleanup-older-than", "0s"});
    assertThat(LineageTables.sideFiles(table)).containsExactly(SideFileSpill.PREFIX + "orphan.bin");

    Thread.sleep(20);
    LanceCompactionJob.main(
        new String[] {
          "--path", table, "--once", "--cleanup-older-than", "0s", "--side-file-min-age", "10 ms"
        });
    assertThat(LineageTables.sideFiles(table)).isEmpty();
    assertThat(LanceTestTables.countRows(table)).isEqualTo(100);
  }

  /**
   * Merge-insert leaves the updated rows' ids inline in a fragment Lance does not plan (too big,
   * few deletions): with spill on, the pass rewrites it alone to spill them.
   */
  @Test
  void spillsSequencesLanceWouldNotPlan() throws Exception {
    String table = dir.resolve("unplanned").toString();
    createStable(table);
    append(table, 0, 2_000, 2);
    List<Long> updated = new java.util.ArrayList<>();
    for (long id = 0; id < 2_000; id += 3) {
      updated.add(id);
    }
    java.util.Collections.shuffle(updated, new java.util.Random(5));
    LineageTables.update(table, updated);
    LineageTables.delete(table, "id = 300");
    LineageTables.setConfig(
        table,
        Map.of("lance.row_lineage.spill", "true", "lance.row_lineage.inline_max_bytes", "64"));
    Map<Long, List<Object>> before = LineageTables.rowsByRowId(table);
    Configuration options = new Configuration();
    options.setString("path", table);
    options.setString("compaction.target-rows-per-fragment", "200");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(1);

    LanceCompactionJob.compactOnce(env, options);

    assertThat(inlineRowIdBytes(table)).allMatch(bytes -> bytes <= 64);
    assertThat(LineageTables.rowsByRowId(table)).isEqualTo(before);
  }

  private static List<Integer> inlineRowIdBytes(String uri) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open().allocator(allocator).uri(uri).build()) {
      return dataset.getFragments().stream()
          .map(f -> RowIdMetaJson.inlineSize(f.metadata().getRowIdMeta()))
          .toList();
    }
  }

  @Test
  void compactOnceReportsWhatItDid() throws Exception {
    String table = dir.resolve("report").toString();
    createStable(table);
    append(table, 0, 1_000, 5);
    Configuration options = new Configuration();
    options.setString("path", table);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(1);

    List<CompactionSummary> first = LanceCompactionJob.compactOnce(env, options);
    List<CompactionSummary> second = LanceCompactionJob.compactOnce(env, options);

    assertThat(first)
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.outcome()).isEqualTo(CompactionSummary.Outcome.COMMITTED);
              assertThat(s.fragmentsBefore()).isEqualTo(5);
              assertThat(s.fragmentsAfter()).isEqualTo(1);
              assertThat(s.rowsRewritten()).isEqualTo(1_000);
              assertThat(s.bytesRewritten()).isPositive();
            });
    assertThat(second)
        .singleElement()
        .satisfies(
            s -> assertThat(s.outcome()).isEqualTo(CompactionSummary.Outcome.NOTHING_TO_COMPACT));
  }

  private static int versions(String uri) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open().allocator(allocator).uri(uri).build()) {
      return dataset.listVersions().size();
    }
  }

  static List<List<String>> badArguments() {
    return List.of(
        List.of("--once"),
        List.of("--path"),
        List.of("--path", "TABLE", "--bogus", "1"),
        List.of("--path", "TABLE", "--once", "--interval", "1 min"),
        List.of("--path", "TABLE", "--interval", "soon"),
        List.of("--path", "TABLE", "--target-rows-per-fragment", "-5"),
        List.of("--path", "TABLE", "--cleanup-older-than", "yesterday"),
        List.of("--path", "TABLE", "--side-file-min-age", "0 s"),
        List.of("--path", "TABLE", "--storage.", "x"),
        List.of("--path", "TABLE", "stray"));
  }

  @ParameterizedTest
  @MethodSource("badArguments")
  void badArgumentsPrintUsageAndLeaveTheTableAlone(List<String> args) throws Exception {
    String table = dir.resolve("untouched").toString();
    createStable(table);
    append(table, 0, 100, 4);
    long version = LanceTestTables.latestVersion(table);

    assertThatThrownBy(
            () ->
                LanceCompactionJob.main(
                    args.stream().map(a -> a.replace("TABLE", table)).toArray(String[]::new)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Usage: LanceCompactionJob --path <uri>");
    assertThat(LanceTestTables.latestVersion(table)).isEqualTo(version);
    assertThat(LanceTestTables.fragmentCount(table)).isEqualTo(4);
  }

  @Test
  void aMissingTableFailsBeforeTheJobStarts() {
    String missing = dir.resolve("missing").toString();

    assertThatThrownBy(() -> LanceCompactionJob.main(new String[] {"--path", missing, "--once"}))
        .hasMessageContaining(missing)
        .hasMessageContaining("does not exist");
    assertThat(Files.exists(Path.of(missing))).isFalse();
  }

  /** The planner could only log it after each pass: a loop that compacts nothing, for ever. */
  @Test
  void aTableConfigTheCompactorCannotReadFailsBeforeTheJobStarts() throws Exception {
    String table = dir.resolve("odd-config").toString();
    createStable(table);
    append(table, 0, 100, 4);
    LineageTables.setConfig(table, Map.of("lance.row_lineage.spill", "yes"));
    long version = LanceTestTables.latestVersion(table);

    assertThatThrownBy(() -> LanceCompactionJob.main(new String[] {"--path", table}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(table)
        .hasMessageContaining("table config 'lance.row_lineage.spill' is 'yes'");
    assertThat(LanceTestTables.latestVersion(table)).isEqualTo(version);
  }

  @Test
  void runsNextToASinkWritingTheSameTable(@InjectMiniCluster MiniCluster miniCluster)
      throws Exception {
    String table = dir.resolve("shared").toString();
    int rows = 10_000;
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(2);
    env.enableCheckpointing(100);
    env.fromSource(
            TestRows.source(rows, RateLimiterStrategy.perCheckpoint(100)),
            WatermarkStrategy.noWatermarks(),
            "ids")
        .sinkTo(LanceSink.forRowData(TestRows.ROW_TYPE).path(table).stableRowIds(true).build());
    JobClient sink = env.executeAsync("sink");
    // the compaction jobs run at parallelism 1, next to the sink's 2 slots
    TestStreamEnvironment.setAsContext(miniCluster, 1);
    CompletableFuture<?> done = sink.getJobExecutionResult();

    int passes = 0;
    while (!done.isDone()) {
      Await.until(
          "four fragments to compact, or the sink's end",
          Duration.ofMinutes(1),
          () ->
              done.isDone()
                  || LanceTestTables.hasVersion(table)
                      && LanceTestTables.fragmentCount(table) >= 4);
      if (!done.isDone()) {
        LanceCompactionJob.main(new String[] {"--path", table, "--once"});
        passes++;
      }
    }
    done.get();

    assertThat(passes).as("compaction passes while the sink ran").isGreaterThanOrEqualTo(2);
    assertThat(LanceTestTables.readLongs(table, "id"))
        .containsExactlyInAnyOrderElementsOf(LongStream.range(0, rows).boxed().toList());
    assertThat(LanceTestTables.commits(table).stream().filter(c -> c.operation().equals("Rewrite")))
        .as("compaction commits")
        .isNotEmpty();
    dev.flinklance.compactor.testing.LineageCheck.assertUnchangedSinceAppend(table);
  }
}
