package dev.flinklance.paimon;

import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

/**
 * One side's lookup join: the feature table written once (a batch job), then the stream of probe
 * records from one source subtask joined against it ({@code JOIN t FOR SYSTEM_TIME AS OF
 * p.proc_time ON p.k = t.id}, the join at parallelism {@link Sessions#PARALLELISM}, streaming
 * mode), every joined row checked by {@link JoinCheck}.
 */
final class LookupRun {
  /**
   * A lookup join's configuration: the table, the options of its hint, and the share of the records
   * it runs (1 in {@code divisor}: the slow ones run on fewer, rates are per second).
   */
  record Arm(String label, SqlTable table, String hint, int divisor) {}

  /**
   * What a join measured: its job's seconds (the cluster's runtime, deployment included), seconds
   * from the start of its planning to its first joined row and from the first to the last, and how
   * its rows differ from the expected ones (null if they do not).
   */
  record Result(
      double seconds, double firstRowSeconds, double afterFirstSeconds, String difference) {}

  private LookupRun() {}

  /** Writes the feature rows into {@code table} in one batch job; returns its seconds. */
  static double load(SqlTable table, Features features) throws Exception {
    StreamExecutionEnvironment env = Sessions.batch();
    StreamTableEnvironment sql = Sessions.sql(env, table);
    sql.createTemporaryView(
        "features",
        sql.fromDataStream(
            env.fromSource(
                new DataGeneratorSource<>(
                    Features::row, features.rows, RateLimiterStrategy.noOp(), Features.TYPE),
                WatermarkStrategy.noWatermarks(),
                "features"),
            Features.schema()));
    return Sessions.seconds(
        sql.executeSql("INSERT INTO " + table.name("") + " SELECT * FROM features"));
  }

  static Result join(Arm arm, Features features, long records) throws Exception {
    long planned = System.currentTimeMillis();
    JobExecutionResult result = run(arm, features, records, 0);
    JoinCheck.Outcome outcome = JoinCheck.Outcome.of(result);
    return new Result(
        result.getNetRuntime() / 1e3,
        (outcome.firstMillis() - planned) / 1e3,
        (outcome.lastMillis() - outcome.firstMillis()) / 1e3,
        outcome.difference(records));
  }

  /**
   * The heap the JVM holds while the join runs, beyond the heap before (both after a GC): the most
   * of what {@link JoinCheck} notes every {@code records / 10} rows, from the first joined row on,
   * when the lookup table is ready. An estimate of what a cache holds; untimed (the GCs would slow
   * a timed job).
   */
  static long heldHeap(Arm arm, Features features, long records) throws Exception {
    long before = JoinCheck.usedHeapAfterGc();
    JobExecutionResult result = run(arm, features, records, Math.max(1, records / 10));
    long most = result.getAccumulatorResult("heap");
    return Math.max(0, most - before);
  }

  private static JobExecutionResult run(Arm arm, Features features, long records, long heapEvery)
      throws Exception {
    StreamExecutionEnvironment env = Sessions.streaming(0);
    StreamTableEnvironment sql = Sessions.sql(env, arm.table());
    sql.createTemporaryView(
        "probes",
        sql.fromDataStream(
            env.fromSource(
                    new DataGeneratorSource<>(
                        features::probe, records, RateLimiterStrategy.noOp(), Features.PROBE_TYPE),
                    WatermarkStrategy.noWatermarks(),
                    "probes")
                .setParallelism(1),
            Features.probeSchema()));
    sql.toDataStream(
            sql.sqlQuery(
                "SELECT p.seq, p.k, t.tier, t.score, t.embedding FROM probes AS p JOIN "
                    + arm.table().name(arm.hint())
                    + " FOR SYSTEM_TIME AS OF p.proc_time AS t ON p.k = t.id"))
        .map(new JoinCheck(features, heapEvery))
        .name("check joined rows")
        .sinkTo(new DiscardingSink<>());
    return env.execute(arm.label());
  }
}
