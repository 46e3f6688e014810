package dev.flinklance.table.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.dataset.LanceDataset;
import dev.flinklance.sink.LanceSink;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

/**
 * A running lookup join of {@link Probes} against a {@link Users} table, which the test changes
 * between phases and compares with the same join computed in Java on the table's rows as plain
 * Lance reads them. A phase's probes are sent after the test saw every lookup task read the newest
 * version ({@link #awaitGeneration}), so each probe has exactly one right answer.
 */
public final class LookupJoin implements AutoCloseable {
  /** A row in every change set, last: its generation says which change set a task reads. */
  public static final long SENTINEL = -7;

  private static final Duration PATIENCE = Duration.ofMinutes(2);

  private final Probes probes;
  private final int subtasks;
  private final CloseableIterator<Row> rows;
  private final Duration refreshInterval;
  private long seq;

  /**
   * @param tableOptions the {@code users} table's options after {@code 'connector' = 'lance'}
   * @param on the join condition and what the join selects of {@code u}, e.g. {@code "c.id = u.id"}
   */
  public LookupJoin(int subtasks, String tableOptions, String on, Duration refreshInterval) {
    this.subtasks = subtasks;
    this.refreshInterval = refreshInterval;
    this.probes = new Probes(subtasks);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(subtasks);
    StreamTableEnvironment tables = StreamTableEnvironment.create(env);
    probes.register(env, tables, "clicks");
    tables.executeSql(
        "CREATE TABLE users ("
            + Users.DDL_COLUMNS
            + ") WITH ('connector' = 'lance', "
            + tableOptions
            + ")");
    TableResult result =
        tables.executeSql(
            "SELECT c.subtask, c.seq, c.id, u.id, u.tenant, u.region, u.name FROM clicks AS c LEFT"
                + " JOIN users FOR SYSTEM_TIME AS OF c.proc_time AS u ON "
                + on);
    rows = result.collect();
  }

  /**
   * Sends {@code ids} (a null is a NULL key), round robin over the subtasks, and returns the join's
   * rows for them as strings, in no particular order; each probe of a unique key has one.
   */
  public List<String> probe(List<Long> ids, int expectedRows) {
    for (int i = 0; i < ids.size(); i++) {
      probes.send(Row.of(i % subtasks, seq++, ids.get(i), "t" + i % 3, i % 10));
    }
    List<String> joined = new ArrayList<>();
    while (joined.size() < expectedRows) {
      joined.add(rows.next().toString());
    }
    return joined;
  }

  /**
   * Waits until every lookup task reads the table with the {@link #SENTINEL} row of {@code
   * generation}, and a refresh interval has passed since the caller's last change (the sentinel may
   * come from a cache the tasks share; a task that did not move yet moves at its next lookup).
   */
  public void awaitGeneration(int generation, long changedAtNanos) throws InterruptedException {
    String expected = "user-" + SENTINEL + "-" + generation;
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    for (int subtask = 0; subtask < subtasks; subtask++) {
      while (true) {
        probes.send(Row.of(subtask, seq++, SENTINEL, null, null));
        Row row = rows.next();
        if (expected.equals(String.valueOf(row.getField(6)))) {
          break;
        }
        assertThat(System.nanoTime())
            .as("every task reads generation %d within %s", generation, PATIENCE)
            .isLessThan(deadline);
        Thread.sleep(20);
      }
    }
    long due = changedAtNanos + refreshInterval.toNanos() + Duration.ofMillis(50).toNanos();
    while (System.nanoTime() < due) {
      Thread.sleep(10);
    }
  }

  /**
   * The join's rows the probes of {@code ids} must give (LEFT JOIN by id) against {@code table}.
   */
  public static List<String> expected(
      List<Long> ids, int subtasks, long firstSeq, Map<Long, List<Object>> table) {
    List<String> rows = new ArrayList<>();
    for (int i = 0; i < ids.size(); i++) {
      Long id = ids.get(i);
      List<Object> match = id == null ? null : table.get(id);
      List<Object> values = new ArrayList<>(List.of(i % subtasks, firstSeq + i));
      values.add(id);
      if (match == null) {
        values.addAll(java.util.Arrays.asList(null, null, null, null));
      } else {
        values.addAll(match);
      }
      rows.add(
          "+I[" + values.stream().map(String::valueOf).collect(Collectors.joining(", ")) + "]");
    }
    return rows;
  }

  public long nextSeq() {
    return seq;
  }

  /** Ends the probes, and checks that the join emitted nothing more than the probes' rows. */
  public List<String> finish() {
    probes.end();
    List<String> extra = new ArrayList<>();
    rows.forEachRemaining(row -> extra.add(row.toString()));
    return extra;
  }

  /**
   * Applies {@code changes} (rows with their {@link org.apache.flink.types.RowKind}) through the
   * upsert sink, as one job and one commit.
   */
  public static void upsert(LanceDataset table, List<RowData> changes, boolean keyIndex)
      throws Exception {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setRuntimeMode(RuntimeExecutionMode.BATCH);
    env.setParallelism(1);
    env.fromData(InternalTypeInfo.of(Users.ROW_TYPE), changes.toArray(RowData[]::new))
        .sinkTo(
            LanceSink.forRowData(Users.ROW_TYPE)
                .path(table.uri())
                .storageOptions(table.storageOptions())
                .primaryKey("id")
                .options(Map.of("sink.upsert.key-index", String.valueOf(keyIndex)))
                .build());
    env.execute("upsert users");
  }

  @Override
  public void close() throws Exception {
    try {
      rows.close();
    } finally {
      probes.close();
    }
  }
}
