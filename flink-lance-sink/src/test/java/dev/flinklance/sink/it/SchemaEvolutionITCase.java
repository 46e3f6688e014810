package dev.flinklance.sink.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.sink.LanceSink;
import dev.flinklance.sink.SchemaEvolutionMode;
import dev.flinklance.testing.Failures;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.LanceTestTables.Commit;
import dev.flinklance.testing.TestClusters;
import dev.flinklance.testing.TestRows;
import dev.flinklance.testing.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.util.Text;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.lance.Dataset;
import org.lance.schema.ColumnAlteration;

/**
 * A sink against a table whose columns change: another client widening it while the job runs, a job
 * upgraded from a savepoint with one more column, a column the job writes dropped, renamed or
 * retyped under it, an upsert table evolving. Exact rows, against what each step wrote.
 */
@Timeout(180)
class SchemaEvolutionITCase {
  private static final int ROWS = 3_000;

  /** The upgraded job's rows: TestRows plus {@code email STRING}. */
  private static final RowType WITH_EMAIL =
      (RowType)
          DataTypes.ROW(
                  DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
                  DataTypes.FIELD("name", DataTypes.STRING()),
                  DataTypes.FIELD("email", DataTypes.STRING()))
              .notNull()
              .getLogicalType();

  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @TempDir Path dir;

  /**
   * Another client adds a nullable column while the job runs: the writers keep writing the columns
   * they know, the commits land on the widened table, and the new column reads NULL for our rows;
   * no restart needed. Then (second case) the job fails over: the restarted writers open the wider
   * table and write NULL into the column their rows lack. Every row exactly once.
   */
  @ParameterizedTest(name = "failover after the change: {0}")
  @ValueSource(booleans = {false, true})
  void aColumnAnotherClientAddsWhileTheJobRunsIsNullInOurRows(boolean failover) throws Exception {
    String table = dir.resolve("t").toString();
    String token = "widened-" + UUID.randomUUID();
    JobClient job =
        appending(
            table, 100, 3, failover ? TestClusters.threeRestarts() : new Configuration(), token);
    long added = addColumn(table, Field.nullable("extra", ArrowType.Utf8.INSTANCE));
    if (failover) {
      ARMED.add(token);
    }
    job.getJobExecutionResult().get(2, TimeUnit.MINUTES);

    assertThat(Failures.fired(token)).as("failed over").isEqualTo(failover);
    assertThat(LanceTestTables.sinkCommits(table))
        .extracting(Commit::version)
        .as("the sink went on committing after the other client's change")
        .anyMatch(version -> version > added);
    assertThat(read(table, "id", "name", "extra"))
        .containsExactlyInAnyOrderElementsOf(
            LongStream.range(0, ROWS)
                .mapToObj(id -> java.util.Arrays.<Object>asList(id, "name-" + id, null))
                .toList());
  }

  /**
   * A job stopped with a savepoint and upgraded with one more column, after another client added a
   * column the job does not know: with add-columns the restored job adds its column and writes it
   * (the rows before read NULL there), and NULL into the other client's; with none it fails naming
   * the column and the option, committing nothing.
   */
  @ParameterizedTest
  @EnumSource(SchemaEvolutionMode.class)
  void aJobUpgradedFromASavepointWithOneMoreColumn(SchemaEvolutionMode mode) throws Exception {
    String table = dir.resolve("t").toString();
    JobClient running = appending(table, 100, 3);
    String savepoint =
        running
            .stopWithSavepoint(
                false, dir.resolve("savepoints").toUri().toString(), SavepointFormatType.CANONICAL)
            .get();
    Set<Long> before = new HashSet<>(LanceTestTables.readLongs(table, "id"));
    // and another client widens the table before the restore: the upgraded job lacks that column
    long versionAtSavepoint =
        addColumn(table, Field.nullable("extra", new ArrowType.Int(32, true)));
    assertThat(before.size()).as("the first job stopped mid-way").isBetween(1, ROWS - 1);

    Configuration restore = new Configuration();
    restore.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
    StreamExecutionEnvironment second = StreamExecutionEnvironment.getExecutionEnvironment(restore);
    second.setParallelism(2);
    second.enableCheckpointing(100);
    second
        .fromSource(
            new DataGeneratorSource<>(
                (GeneratorFunction<Long, RowData>) SchemaEvolutionITCase::withEmail,
                ROWS,
                InternalTypeInfo.of(WITH_EMAIL)),
            WatermarkStrategy.noWatermarks(),
            "ids")
        .uid("ids")
        .sinkTo(LanceSink.forRowData(WITH_EMAIL).path(table).schemaEvolution(mode).build())
        .uid("lance-sink");

    if (mode == SchemaEvolutionMode.NONE) {
      assertThatThrownBy(second::execute)
          .satisfies(
              e ->
                  assertThat(ExceptionUtils.stringifyException(e))
                      .contains(
                          "the stream has columns the table lacks: [email Utf8]; set"
                              + " 'sink.schema-evolution' = 'add-columns'"));
      assertThat(LanceTestTables.latestVersion(table)).isEqualTo(versionAtSavepoint);
      return;
    }
    second.execute();
    List<List<Object>> expected = new ArrayList<>();
    for (long id = 0; id < ROWS; id++) {
      expected.add(
          java.util.Arrays.asList(id, "name-" + id, before.contains(id) ? null : "e-" + id, null));
    }
    assertThat(read(table, "id", "name", "email", "extra"))
        .containsExactlyInAnyOrderElementsOf(expected);
    assertThat(LanceTestTables.commits(table))
        .filteredOn(c -> c.properties().containsKey("flink.schema-change"))
        .as("one stamped commit added the column")
        .hasSize(1);
  }

  /**
   * A column the job writes is dropped or renamed by another client while the job runs: the job
   * fails, naming the table, the column and its type, and commits nothing after the change (a
   * retyped column, dropped and added again: {@code WrittenColumnsTest}).
   */
  @ParameterizedTest
  @ValueSource(strings = {"drop", "rename"})
  void aColumnTheJobWritesChangedUnderItFailsTheJob(String change) throws Exception {
    String table = dir.resolve("t").toString();
    JobClient job = appending(table, 50, 2);
    long changed = changeName(table, change);
    String expected =
        switch (change) {
          case "drop" -> "column 'name' (Utf8) that the sink writes was dropped from the table";
          default ->
              "column 'name' (Utf8) that the sink writes was renamed to 'title' in the table";
        };
    CompletableFuture<?> result = job.getJobExecutionResult();
    assertThatThrownBy(() -> result.get(2, TimeUnit.MINUTES))
        .satisfies(
            e ->
                assertThat(ExceptionUtils.stringifyException(e))
                    .contains(table)
                    .contains(expected));
    assertThat(LanceTestTables.sinkCommits(table))
        .extracting(Commit::version)
        .as("nothing committed after the change")
        .allMatch(version -> version < changed);
  }

  /**
   * An upsert sink whose row type gained a column: the column is added, rows upserted after it
   * carry it, rows the upserts did not touch read NULL there.
   */
  @Test
  void anUpsertSinkAddsItsNewColumn() throws Exception {
    String table = dir.resolve("t").toString();
    TestTables.createWithKey(table, TestRows.ROW_TYPE, "id");
    TestTables.upsert(
        table, TestRows.ROW_TYPE, "id", List.of(TestRows.row(1), TestRows.row(2), TestRows.row(3)));

    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(2);
    env.enableCheckpointing(100);
    GenericRowData update = withEmail(2L);
    update.setRowKind(RowKind.UPDATE_AFTER);
    env.fromData(List.<RowData>of(update, withEmail(4L)), InternalTypeInfo.of(WITH_EMAIL))
        .sinkTo(
            LanceSink.forRowData(WITH_EMAIL)
                .path(table)
                .primaryKey("id")
                .schemaEvolution(SchemaEvolutionMode.ADD_COLUMNS)
                .build());
    env.execute();

    assertThat(read(table, "id", "name", "email"))
        .containsExactlyInAnyOrder(
            java.util.Arrays.asList(1L, "name-1", null),
            java.util.Arrays.asList(2L, "name-2", "e-2"),
            java.util.Arrays.asList(3L, "name-3", null),
            java.util.Arrays.asList(4L, "name-4", "e-4"));
  }

  /** Tokens of the jobs whose {@link FailOnceArmed} may fail now. */
  private static final Set<String> ARMED = ConcurrentHashMap.newKeySet();

  /** Passes records through; fails the first one after the test armed its token, once. */
  private static final class FailOnceArmed implements MapFunction<RowData, RowData> {
    private static final long serialVersionUID = 1L;
    private final String token;

    FailOnceArmed(String token) {
      this.token = token;
    }

    @Override
    public RowData map(RowData row) {
      if (ARMED.contains(token) && Failures.fireOnce(token)) {
        throw new RuntimeException("Injected failure after the other client's change");
      }
      return row;
    }
  }

  private static JobClient appending(String table, int rowsPerCheckpoint, int commits)
      throws Exception {
    return appending(table, rowsPerCheckpoint, commits, new Configuration(), "never-armed");
  }

  /**
   * Starts a streaming job appending TestRows' {@link #ROWS} rows, {@code rowsPerCheckpoint} each
   * checkpoint, through a {@link FailOnceArmed} of {@code token}, and waits for its first {@code
   * commits} commits.
   */
  private static JobClient appending(
      String table, int rowsPerCheckpoint, int commits, Configuration restarts, String token)
      throws Exception {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(restarts);
    env.setParallelism(2);
    env.enableCheckpointing(100);
    env.fromSource(
            TestRows.source(ROWS, RateLimiterStrategy.perCheckpoint(rowsPerCheckpoint)),
            WatermarkStrategy.noWatermarks(),
            "ids")
        .uid("ids")
        .map(new FailOnceArmed(token))
        .returns(TestRows.TYPE_INFO)
        .uid("fails-once-armed")
        .sinkTo(LanceSink.forRowData(TestRows.ROW_TYPE).path(table).build())
        .uid("lance-sink");
    JobClient job = env.executeAsync();
    LanceTestTables.awaitSinkCommits(table, commits, Duration.ofMinutes(1));
    return job;
  }

  /** The columns' values, strings as Java strings. */
  private static List<List<Object>> read(String table, String... columns) {
    return LanceTestTables.readColumns(table, List.of(columns)).stream()
        .map(
            row ->
                row.stream()
                    .map(value -> value instanceof Text text ? (Object) text.toString() : value)
                    .toList())
        .toList();
  }

  private static GenericRowData withEmail(Long id) {
    return GenericRowData.of(
        id, StringData.fromString("name-" + id), StringData.fromString("e-" + id));
  }

  /** Plain Lance's add-columns, as another client: returns the version it committed. */
  private static long addColumn(String table, Field field) throws InterruptedException {
    return asAnotherClient(table, dataset -> dataset.addColumns(List.of(field)));
  }

  /**
   * One schema change by plain Lance, retried as Lance asks when it loses to a concurrent commit of
   * the sink; returns the version it committed.
   */
  private static long asAnotherClient(String table, Consumer<Dataset> change)
      throws InterruptedException {
    for (int attempt = 1; ; attempt++) {
      try (BufferAllocator allocator = new RootAllocator();
          Dataset dataset = Dataset.open(table, allocator)) {
        change.accept(dataset);
        return LanceTestTables.latestVersion(table);
      } catch (RuntimeException e) {
        if (attempt == 20
            || !String.valueOf(e.getMessage()).contains("Retryable commit conflict")) {
          throw e;
        }
        Thread.sleep(10);
      }
    }
  }

  /** Plain Lance's drop or rename of column name: returns the version it committed. */
  private static long changeName(String table, String change) throws InterruptedException {
    return asAnotherClient(
        table,
        dataset -> {
          if (change.equals("drop")) {
            dataset.dropColumns(List.of("name"));
          } else {
            dataset.alterColumns(
                List.of(new ColumnAlteration.Builder("name").rename("title").build()));
          }
        });
  }
}
