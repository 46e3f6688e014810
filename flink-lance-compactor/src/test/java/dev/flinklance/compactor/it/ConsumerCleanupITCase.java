package dev.flinklance.compactor.it;

import static org.apache.flink.core.execution.SavepointFormatType.CANONICAL;
import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.access.TableRef;
import dev.flinklance.compactor.commit.VersionCleanup;
import dev.flinklance.consumer.ConsumerRegistration;
import dev.flinklance.consumer.Consumers;
import dev.flinklance.errors.PermanentDatasetException;
import dev.flinklance.files.TableFiles;
import dev.flinklance.source.LanceSource;
import dev.flinklance.source.LanceSourceBuilder;
import dev.flinklance.testing.Await;
import dev.flinklance.testing.EmittedRows;
import dev.flinklance.testing.TestClusters;
import dev.flinklance.testing.TestRows;
import dev.flinklance.testing.TestTables;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.Version;

/**
 * A streaming changelog read registered as a consumer ({@code scan.consumer-id}) is stopped with a
 * savepoint after version 2; the table gets four more versions (appends, a delete, an update); a
 * cleanup of every version older than 0 s runs; the read restored from the savepoint emits every
 * change of them, compared with the model. The cleanup kept version 2, which the read compares
 * version 3 against, and removed version 1. Without the registration the same cleanup removes
 * version 2 and the restored read fails naming the version and the option. The same protection
 * holds across a failover (a reader that fails while behind, and a cleanup while Flink restarts
 * it). The registration of a read cancelled for good expires.
 */
@Timeout(value = 240, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ConsumerCleanupITCase {
  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @TempDir Path dir;

  private final String token = UUID.randomUUID().toString();
  private String table;

  /** Version 1 empty, version 2 ids [0, 10). */
  private void createTable() {
    table = dir.resolve("events").toString();
    TestTables.create(table, TestRows.ROW_TYPE, Map.of());
    TestTables.append(table, TestRows.ROW_TYPE, rows(0, 10), 10);
  }

  /** Versions 3 to 6, and what a changelog read emits for them. */
  private List<String> changeTheTable() {
    TestTables.append(table, TestRows.ROW_TYPE, rows(10, 15), 5); // 3
    TestTables.delete(table, "id = 3"); // 4
    TestTables.upsert(
        table,
        TestRows.ROW_TYPE,
        "id",
        List.of(GenericRowData.of(5L, StringData.fromString("new-5")))); // 5
    TestTables.append(table, TestRows.ROW_TYPE, rows(15, 20), 5); // 6
    List<String> changes = new ArrayList<>(inserts(10, 15));
    changes.addAll(List.of("-D[3, name-3]", "-U[5, name-5]", "+U[5, new-5]"));
    changes.addAll(inserts(15, 20));
    return changes;
  }

  @Test
  void aRegisteredReadSurvivesACleanupOfTheVersionsItStillNeeds() throws Exception {
    createTable();
    JobClient first = start(read().consumerId("copy").build(), null);
    awaitVersion2ReadAndRegistered(first);
    String savepoint = stopWithSavepoint(first);
    List<String> expected = new ArrayList<>(inserts(0, 10));
    expected.addAll(changeTheTable());

    cleanUpEverythingOlderThanNow();

    assertThat(versions()).as("version 1 cleaned up, 2 kept").containsExactly(2L, 3L, 4L, 5L, 6L);
    JobClient restored = start(read().consumerId("copy").build(), savepoint);
    Await.until(
        expected.size() + " changes",
        Duration.ofSeconds(90),
        restored,
        () -> Emitted.rows(token).size() >= expected.size());
    assertThat(Emitted.rows(token)).as("in version order").containsExactlyElementsOf(expected);
    Await.until(
        "the restored read registered at version 6",
        Duration.ofSeconds(60),
        restored,
        () -> registration().map(r -> r.version() == 6).orElse(false));
    Await.cancel(restored, Duration.ofSeconds(30));
  }

  @Test
  void withoutARegistrationTheRestoredReadFailsNamingTheVersionAndTheOption() throws Exception {
    createTable();
    JobClient first = start(read().build(), null);
    Await.until(
        "version 2 read", Duration.ofSeconds(90), first, () -> Emitted.rows(token).size() == 10);
    String savepoint = stopWithSavepoint(first);
    changeTheTable();

    cleanUpEverythingOlderThanNow();

    assertThat(versions()).containsExactly(6L);
    JobClient restored = start(read().build(), savepoint);
    Throwable failure = failureOf(restored);
    assertThat(ExceptionUtils.stringifyException(failure))
        .contains(
            "Lance table '"
                + table
                + "': the streaming read needs version 2 and every later one, and one of them was"
                + " cleaned up; register the read as a consumer ('scan.consumer-id')")
        .contains("version 2 no longer exists");
    assertThat(ExceptionUtils.findThrowable(failure, PermanentDatasetException.class)).isPresent();
    assertThat(Emitted.rows(token)).containsExactlyElementsOf(inserts(0, 10));
  }

  /**
   * A failover while the read is behind: it fails reading version 3 of 4, after checkpoints that
   * completed while version 3's split was half read (its rows come slowly), and while Flink waits
   * to restart it (3 s) a cleanup of every version older than 0 s runs. The registration keeps
   * version 2: the restarted reader reads its split of version 3 again, pairing its rows with
   * version 2 (a changelog read). It then reads on, registers version 4, and every change arrives.
   * Without the registration the cleanup removes versions 2 and 3 and the restarted read fails.
   */
  @Test
  void aRegistrationProtectsAReadAcrossAFailover() throws Exception {
    createTable();
    JobClient job = start(read().consumerId("copy").build(), null, 100, 12);
    awaitVersion2ReadAndRegistered(job);

    TestTables.append(table, TestRows.ROW_TYPE, rows(10, 15), 5); // 3: row 12 fails the job once
    TestTables.append(table, TestRows.ROW_TYPE, rows(15, 20), 5); // 4
    Await.until("the failure", Duration.ofSeconds(90), () -> Emitted.failed(token));
    cleanUpEverythingOlderThanNow();

    assertThat(versions())
        .as("version 2 kept: the half-read split of version 3 pairs its rows with it")
        .containsExactly(2L, 3L, 4L);
    Await.until(
        "every change after the failover",
        Duration.ofSeconds(90),
        job,
        () -> Set.copyOf(Emitted.rows(token)).containsAll(inserts(0, 20)));
    assertThat(Set.copyOf(Emitted.rows(token))).containsExactlyInAnyOrderElementsOf(inserts(0, 20));
    Await.until(
        "version 4 registered",
        Duration.ofSeconds(60),
        job,
        () -> registration().map(r -> r.version() == 4).orElse(false));
    Await.cancel(job, Duration.ofSeconds(30));
  }

  /**
   * A running read keeps its registration alive: with nothing new to read it writes it again every
   * quarter of {@code scan.consumer.expiration-time} (here 4 s). Cancelled and never restored
   * (abandoned), it protects nothing once that time has passed since its last write: a cleanup then
   * removes the versions it needed, and its registration.
   */
  @Test
  void anAbandonedReadsRegistrationExpires() throws Exception {
    createTable();
    JobClient job =
        start(read().consumerId("copy").consumerExpiration(Duration.ofSeconds(4)).build(), null);
    awaitVersion2ReadAndRegistered(job);
    long written = registration().orElseThrow().heartbeatMillis();
    Await.until(
        "the registration written again while idle",
        Duration.ofSeconds(30),
        job,
        () -> registration().orElseThrow().heartbeatMillis() > written);
    Await.cancel(job, Duration.ofSeconds(30));
    changeTheTable();

    ConsumerRegistration last = registration().orElseThrow();
    assertThat(last.version()).isEqualTo(2);
    assertThat(last.expirationMillis()).isEqualTo(4_000);
    Await.until(
        "the registration expired",
        Duration.ofSeconds(30),
        () -> last.expired(System.currentTimeMillis()));
    cleanUpEverythingOlderThanNow();

    assertThat(versions()).as("nothing kept for the abandoned read").containsExactly(6L);
    assertThat(registration()).isEmpty();
  }

  private void awaitVersion2ReadAndRegistered(JobClient job) throws InterruptedException {
    Await.until(
        "version 2 read and registered",
        Duration.ofSeconds(90),
        job,
        () ->
            Emitted.rows(token).size() == 10
                && registration().map(r -> r.version() == 2).orElse(false));
  }

  private LanceSourceBuilder read() {
    return LanceSource.builder()
        .path(table)
        .streaming()
        .startAfterVersion(1)
        .changelog(true)
        .primaryKey("id")
        .discoveryInterval(Duration.ofMillis(100));
  }

  private JobClient start(LanceSource source, String savepoint) throws Exception {
    return start(source, savepoint, 100, -1);
  }

  /** A job that fails once when it meets row {@code failAt} (none if negative). */
  private JobClient start(LanceSource source, String savepoint, long checkpointMillis, long failAt)
      throws Exception {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(1);
    env.enableCheckpointing(checkpointMillis);
    Configuration restarts = TestClusters.threeRestarts();
    restarts.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofSeconds(3));
    env.configure(restarts, getClass().getClassLoader());
    if (savepoint != null) {
      env.configure(
          new Configuration().set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint),
          getClass().getClassLoader());
    }
    env.fromSource(source, WatermarkStrategy.noWatermarks(), "lance")
        .uid("lance")
        .map(new Emitted(token, failAt))
        .uid("emitted")
        .returns(TestRows.TYPE_INFO)
        .sinkTo(new DiscardingSink<>());
    return env.executeAsync("registered read");
  }

  private String stopWithSavepoint(JobClient job) throws Exception {
    return job.stopWithSavepoint(false, dir.resolve("savepoints").toUri().toString(), CANONICAL)
        .get();
  }

  private static Throwable failureOf(JobClient job) throws InterruptedException {
    try {
      job.getJobExecutionResult().get();
    } catch (ExecutionException e) {
      return e;
    }
    throw new AssertionError("the job did not fail");
  }

  /** This connector's cleanup, as compaction runs it, of every version but the latest. */
  private void cleanUpEverythingOlderThanNow() throws IOException {
    Optional<TableFiles> files = TableFiles.of(new TableRef(table, Map.of()));
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open().allocator(allocator).uri(table).build()) {
      new VersionCleanup(Duration.ZERO, Duration.ofHours(1), files).run(dataset);
    } finally {
      files.ifPresent(TableFiles::close);
    }
  }

  private Optional<ConsumerRegistration> registration() throws IOException {
    try (TableFiles files = TableFiles.of(new TableRef(table, Map.of())).orElseThrow()) {
      return new Consumers(files).read("copy");
    }
  }

  private List<Long> versions() {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open().allocator(allocator).uri(table).build()) {
      return dataset.listVersions().stream().map(Version::getId).sorted().toList();
    }
  }

  private static List<RowData> rows(long from, long to) {
    return LongStream.range(from, to).mapToObj(TestRows::row).toList();
  }

  private static List<String> inserts(long from, long to) {
    return LongStream.range(from, to).mapToObj(id -> "+I[" + id + ", name-" + id + "]").toList();
  }

  /**
   * Records the rows as they leave the reader; fails once at row {@code failAt}, after the two rows
   * before it came slowly.
   */
  private static final class Emitted implements MapFunction<RowData, RowData> {
    private static final long serialVersionUID = 1L;
    private static final Set<String> FAILED = ConcurrentHashMap.newKeySet();
    private final String token;
    private final long failAt;

    Emitted(String token, long failAt) {
      this.token = token;
      this.failAt = failAt;
    }

    static boolean failed(String token) {
      return FAILED.contains(token);
    }

    static List<String> rows(String token) {
      return EmittedRows.of(token);
    }

    @Override
    public RowData map(RowData row) throws InterruptedException {
      long id = row.getLong(0);
      if (id >= failAt - 2 && id < failAt && !FAILED.contains(token)) {
        // Slow rows before the failure: checkpoints (every 100 ms) complete while their split is
        // half read, and register what restoring them needs.
        Thread.sleep(150);
      }
      if (id == failAt && FAILED.add(token)) {
        throw new IllegalStateException("injected failure at row " + failAt);
      }
      EmittedRows.add(token, TestRows.change(row));
      return row;
    }
  }
}
