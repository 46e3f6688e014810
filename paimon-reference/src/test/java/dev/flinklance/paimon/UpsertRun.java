package dev.flinklance.paimon;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

/**
 * One side's run of the changelog: the initial load and the changes, each a streaming job of its
 * own (parallelism {@link Sessions#PARALLELISM}, the changes from one source subtask so that a
 * key's changes stay in order), then full reads of the final table through its Flink SQL source, in
 * batch mode, and its rows compared with the replay.
 */
final class UpsertRun {
  /** Both sides' reads at the same parallelism (Paimon's would otherwise follow its splits). */
  private static final String SCAN = "'scan.parallelism' = '" + Sessions.PARALLELISM + "'";

  /**
   * What a run measured: seconds of the load's and the changes' jobs (the cluster's runtime,
   * deployment included), bytes on disk after them, seconds of {@code SELECT COUNT(*)} and of a
   * scan summing a column (from the statement to its result), and how the table differs from the
   * replay (null if it does not).
   */
  record Result(
      double loadSeconds,
      double changeSeconds,
      long bytes,
      double countSeconds,
      double sumSeconds,
      String difference) {}

  private UpsertRun() {}

  static Result run(SqlTable table, Changes changes, Replay replay, long checkpointMillis)
      throws Exception {
    double load = write(table, changes, 0, changes.rows, checkpointMillis);
    double change = write(table, changes, changes.rows, changes.changes, checkpointMillis);
    long bytes = table.bytesOnDisk();
    StreamTableEnvironment reads = Sessions.sql(Sessions.batch(), table);
    long start = System.nanoTime();
    long count = (Long) single(reads, "SELECT COUNT(*) FROM " + table.name(SCAN));
    double countSeconds = (System.nanoTime() - start) / 1e9;
    start = System.nanoTime();
    double sum = (Double) single(reads, "SELECT SUM(score) FROM " + table.name(SCAN));
    double sumSeconds = (System.nanoTime() - start) / 1e9;
    String difference;
    if (count != replay.rowCount()) {
      difference = "COUNT(*) " + count + ", expected " + replay.rowCount();
    } else if (Math.abs(sum - replay.scoreSum()) > 1e-9 * Math.abs(replay.scoreSum())) {
      difference = "SUM(score) " + sum + ", expected " + replay.scoreSum();
    } else {
      try (CloseableIterator<Row> rows =
          reads.executeSql("SELECT id, payload, score, qty FROM " + table.name(SCAN)).collect()) {
        difference = replay.differences(rows);
      }
    }
    return new Result(load, change, bytes, countSeconds, sumSeconds, difference);
  }

  /** Writes changes {@code first .. first+count-1} into the table; returns the job's seconds. */
  private static double write(
      SqlTable table, Changes changes, long first, long count, long checkpointMillis)
      throws Exception {
    StreamExecutionEnvironment env = Sessions.streaming(checkpointMillis);
    StreamTableEnvironment sql = Sessions.sql(env, table);
    DataStream<Row> stream =
        env.fromSource(
                new DataGeneratorSource<>(
                    changes.from(first), count, RateLimiterStrategy.noOp(), Changes.TYPE),
                WatermarkStrategy.noWatermarks(),
                "changelog")
            .setParallelism(1);
    sql.createTemporaryView(
        "changes", sql.fromChangelogStream(stream, Changes.schema(), ChangelogMode.all()));
    return Sessions.seconds(
        sql.executeSql("INSERT INTO " + table.name("") + " SELECT * FROM changes"));
  }

  private static Object single(StreamTableEnvironment sql, String query) throws Exception {
    try (CloseableIterator<Row> rows = sql.executeSql(query).collect()) {
      return rows.next().getField(0);
    }
  }
}
