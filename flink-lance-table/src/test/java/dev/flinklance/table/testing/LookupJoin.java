package dev.flinklance.table.testing;

import dev.flinklance.access.TableRef;
import dev.flinklance.sink.LanceSink;
import dev.flinklance.testing.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.BiPredicate;
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
  private final Duration cacheExpiry;
  private long seq;
  private long lastRowAt = System.nanoTime();

  /**
   * @param tableOptions the {@code users} table's options after {@code 'connector' = 'lance'}
   * @param on the join condition and what the join selects of {@code u}, e.g. {@code "c.id = u.id"}
   */
  public LookupJoin(int subtasks, String tableOptions, String on, Duration refreshInterval) {
    this(subtasks, tableOptions, on, refreshInterval, Duration.ZERO);
  }

  /**
   * @param cacheExpiry the PARTIAL cache's {@code expire-after-write}: a phase waits for the
   *     entries of the one before to expire
   */
  public LookupJoin(
      int subtasks,
      String tableOptions,
      String on,
      Duration refreshInterval,
      Duration cacheExpiry) {
    this.subtasks = subtasks;
    this.refreshInterval = refreshInterval;
    this.cacheExpiry = cacheExpiry;
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

  /** One probe row's key columns; any may be NULL. */
  public record Probe(Long id, String tenant, Integer region) {
    public static Probe ofId(Long id) {
      return new Probe(id, null, null);
    }
  }

  /**
   * Sends {@code probes}, round robin over the subtasks, and returns the join's rows for them as
   * strings, in no particular order: as many as {@code expected} lists.
   */
  public List<String> probe(List<Probe> probes, List<String> expected) {
    for (int i = 0; i < probes.size(); i++) {
      Probe probe = probes.get(i);
      this.probes.send(Row.of(i % subtasks, seq++, probe.id(), probe.tenant(), probe.region()));
    }
    List<String> joined = new ArrayList<>();
    while (joined.size() < expected.size()) {
      joined.add(rows.next().toString());
    }
    lastRowAt = System.nanoTime();
    return joined;
  }

  /**
   * Waits until every lookup task reads the table with the {@link #SENTINEL} row of {@code
   * generation}, a refresh interval has passed since the caller's last change (the sentinel may
   * come from a cache the tasks share; a task that did not move yet moves at its next lookup), and
   * the cache entries of the last phase have expired.
   */
  public void awaitGeneration(int generation, long changedAtNanos) throws InterruptedException {
    String expected = "user-" + SENTINEL + "-" + generation;
    for (int subtask = 0; subtask < subtasks; subtask++) {
      int probed = subtask;
      String[] last = new String[1];
      Await.until(
          "lookup task " + probed + " to read generation " + generation,
          PATIENCE,
          () -> {
            // the sentinel's row matches by id, (tenant, id) and region
            probes.send(Row.of(probed, seq++, SENTINEL, "t-1", (int) (SENTINEL % 10)));
            last[0] = String.valueOf(rows.next().getField(6));
            return expected.equals(last[0]);
          },
          () -> "it read " + last[0]);
    }
    long due =
        Math.max(changedAtNanos + refreshInterval.toNanos(), lastRowAt + cacheExpiry.toNanos())
            + Duration.ofMillis(50).toNanos();
    Await.until(
        "a refresh interval since the change and the last phase's cache entries expired",
        PATIENCE,
        () -> System.nanoTime() >= due);
  }

  /**
   * The rows the LEFT JOIN of {@code probes}, sent from {@code firstSeq} on, must give against the
   * table's rows ({@link Users#read}) under the join condition {@code on}.
   */
  public static List<String> expected(
      List<Probe> probes,
      int subtasks,
      long firstSeq,
      Collection<List<Object>> table,
      BiPredicate<Probe, List<Object>> on) {
    List<String> rows = new ArrayList<>();
    for (int i = 0; i < probes.size(); i++) {
      Probe probe = probes.get(i);
      List<List<Object>> matches = table.stream().filter(row -> on.test(probe, row)).toList();
      for (List<Object> right :
          matches.isEmpty() ? List.of(Arrays.asList(null, null, null, null)) : matches) {
        List<Object> values = new ArrayList<>(List.of(i % subtasks, firstSeq + i));
        values.add(probe.id());
        values.addAll(right);
        rows.add(
            "+I[" + values.stream().map(String::valueOf).collect(Collectors.joining(", ")) + "]");
      }
    }
    return rows;
  }

  /** Sends {@code probe} again and again until the job fails, and returns its failure. */
  public Throwable probeUntilTheJobFails(Probe probe) throws InterruptedException {
    RuntimeException[] failure = new RuntimeException[1];
    Await.until(
        "the job to fail",
        PATIENCE,
        () -> {
          probes.send(Row.of(0, seq++, probe.id(), probe.tenant(), probe.region()));
          try {
            rows.next();
            return false;
          } catch (RuntimeException e) {
            failure[0] = e;
            return true;
          }
        });
    return failure[0];
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
  public static void upsert(TableRef table, List<RowData> changes, boolean keyIndex)
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
