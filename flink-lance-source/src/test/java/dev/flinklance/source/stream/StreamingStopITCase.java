package dev.flinklance.source.stream;

import static dev.flinklance.source.testing.StoppedJobs.assertPermanent;
import static dev.flinklance.source.testing.StoppedJobs.failureOf;
import static org.apache.flink.core.execution.SavepointFormatType.CANONICAL;
import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.source.LanceSource;
import dev.flinklance.source.LanceSourceBuilder;
import dev.flinklance.source.testing.StoppedJobs;
import dev.flinklance.testing.Await;
import dev.flinklance.testing.EmittedRows;
import dev.flinklance.testing.TestClusters;
import dev.flinklance.testing.TestRows;
import dev.flinklance.testing.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.LongStream;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A streaming read that a version stops ({@code scan.on-delete} or {@code scan.on-overwrite} =
 * {@code fail}) first emits every change of the versions before it, then fails naming the last of
 * them: a job started again after that version loses no row. The versions come in one discovery
 * here (the read starts after version 1 of a table that has them all), and one read is restored
 * from a savepoint taken while it emits them.
 */
@Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class StreamingStopITCase {
  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  private static final String DELETE_STOPS_AFTER_2 =
      "version 3 (Delete) deletes or updates rows, which an append-only streaming read"
          + " ('scan.changelog' = 'false') cannot emit; with 'scan.on-delete' = 'fail' it stops"
          + " here, having emitted every change up to version 2.";

  @TempDir Path dir;

  private String table;

  private final String token = UUID.randomUUID().toString();

  /** Version 1 empty, version 2 ids [0, rows) in fragments of {@code rowsPerFragment}. */
  private void createTable(long rows, int rowsPerFragment) {
    table = dir.resolve("events").toString();
    TestTables.create(table, TestRows.ROW_TYPE, Map.of());
    TestTables.append(
        table,
        TestRows.ROW_TYPE,
        LongStream.range(0, rows).mapToObj(TestRows::row).toList(),
        rowsPerFragment);
  }

  private LanceSourceBuilder afterVersion1() {
    return LanceSource.builder()
        .path(table)
        .streaming()
        .startAfterVersion(1)
        .discoveryInterval(Duration.ofMillis(100))
        .batchSize(16);
  }

  @Test
  void anAppendOnlyReadEmitsTheVersionsBeforeADelete() throws Exception {
    createTable(50, 10); // version 2
    TestTables.delete(table, "id = 3"); // 3
    Throwable failure = failureOf(start(afterVersion1().build(), 0, null));
    assertPermanent(failure, table, DELETE_STOPS_AFTER_2);
    assertThat(Emitted.rows(token)).containsExactlyInAnyOrderElementsOf(inserts(0, 50));
  }

  @Test
  void aChangelogReadEmitsTheVersionsBeforeAnOverwrite() throws Exception {
    createTable(20, 10); // version 2
    TestTables.upsert(
        table,
        TestRows.ROW_TYPE,
        "id",
        List.of(GenericRowData.of(5L, StringData.fromString("new-5")))); // 3
    TestTables.delete(table, "id = 7"); // 4
    TestTables.overwrite(table, TestRows.ROW_TYPE, List.of(TestRows.row(100))); // 5
    LanceSource source = afterVersion1().changelog(true).primaryKey("id").build();
    Throwable failure = failureOf(start(source, 0, null));
    assertPermanent(
        failure,
        table,
        "version 5 (Overwrite) replaced the table's rows; with 'scan.on-overwrite' = 'fail' the"
            + " streaming read stops here, having emitted every change up to version 4 and none"
            + " of version 5.");
    List<String> expected = new ArrayList<>(inserts(0, 20));
    expected.addAll(List.of("-U[5, name-5]", "+U[5, new-5]", "-D[7, name-7]"));
    assertThat(Emitted.rows(token)).as("in version order").containsExactlyElementsOf(expected);
  }

  /**
   * Stopped with a savepoint while the versions before the delete are emitted (slowly), started
   * again from it: the restored read emits the rest of them, each row once, and then fails.
   */
  @Test
  void acrossARestoreFromASavepoint() throws Exception {
    createTable(4_000, 400); // version 2: ten splits
    TestTables.delete(table, "id = 3"); // 3
    JobClient first = start(afterVersion1().build(), 2, null);
    Await.until(
        "200 rows emitted", Duration.ofSeconds(60), first, () -> Emitted.rows(token).size() >= 200);
    String savepoint =
        first
            .stopWithSavepoint(false, dir.resolve("savepoints").toUri().toString(), CANONICAL)
            .get();
    int beforeRestore = Emitted.rows(token).size();
    assertThat(beforeRestore).isLessThan(4_000);

    Throwable failure = failureOf(start(afterVersion1().build(), 0, savepoint));
    assertPermanent(failure, table, DELETE_STOPS_AFTER_2);
    assertThat(Emitted.rows(token)).containsExactlyInAnyOrderElementsOf(inserts(0, 4_000));
  }

  private JobClient start(LanceSource source, long pauseMillis, String savepoint) throws Exception {
    StreamExecutionEnvironment env = StoppedJobs.environment(savepoint);
    env.fromSource(source, WatermarkStrategy.noWatermarks(), "lance")
        .uid("lance")
        .map(new Emitted(token, pauseMillis))
        .uid("emitted")
        .returns(TestRows.TYPE_INFO)
        .sinkTo(new DiscardingSink<>());
    return env.executeAsync("stopping read");
  }

  private static List<String> inserts(long from, long to) {
    return LongStream.range(from, to).mapToObj(id -> "+I[" + id + ", name-" + id + "]").toList();
  }

  /**
   * Records the rows as they leave the reader it is chained to (before any failure of the job can
   * lose them on their way), pausing after each.
   */
  private static final class Emitted implements MapFunction<RowData, RowData> {
    private static final long serialVersionUID = 1L;
    private final String token;
    private final long pauseMillis;

    Emitted(String token, long pauseMillis) {
      this.token = token;
      this.pauseMillis = pauseMillis;
    }

    static List<String> rows(String token) {
      return EmittedRows.of(token);
    }

    @Override
    public RowData map(RowData row) throws InterruptedException {
      EmittedRows.add(token, TestRows.change(row));
      Thread.sleep(pauseMillis);
      return row;
    }
  }
}
