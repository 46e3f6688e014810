package dev.flinklance.compactor;

import dev.flinklance.access.OpenTable;
import dev.flinklance.access.TableRef;
import dev.flinklance.compactor.commit.CompactionSummary;
import dev.flinklance.compactor.lineage.RowLineageConfig;
import dev.flinklance.compactor.operator.CompactionTopology;
import dev.flinklance.compactor.plan.PlanRequest;
import dev.flinklance.errors.LanceDatasetException;
import dev.flinklance.secrets.Secrets;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;

/**
 * Compacts a Lance table written by any Lance writer, as a Flink job: the same planner, rewrite
 * workers and committer (with row-lineage spill) as the sink's {@code compaction.enabled}.
 *
 * <pre>
 * LanceCompactionJob --path s3://bucket/events.lance --storage.aws_region eu-west-1 --once
 * </pre>
 *
 * From a plain JVM it runs on an embedded local Flink; submitted to a cluster ({@code flink run},
 * jar upload) it runs there. It can run next to a sink writing the same table: compaction commits
 * rebase over the sink's appends, and rewrites a concurrent delete or overwrite preempts are
 * dropped.
 */
@PublicEvolving
public final class LanceCompactionJob {
  private static final long CHECKPOINT_INTERVAL_MS = 60_000;

  private LanceCompactionJob() {}

  /**
   * @throws IllegalArgumentException for bad arguments (after printing the usage), or a table
   *     config the compactor cannot read; the table is not touched
   * @throws Exception the job's failure; a {@code --once} pass that failed fails its job with a
   *     {@link CompactionFailedException}
   */
  public static void main(String[] args) throws Exception {
    CompactionJobArgs parsed;
    try {
      parsed = CompactionJobArgs.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      throw e;
    }
    requireTable(parsed.config);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    DataStream<CompactionSummary> summaries = build(env, parsed);
    if (parsed.once) {
      // a pass that failed fails the job (submitted over REST too, where nothing can be collected)
      TableRef table = parsed.config.dataset();
      summaries =
          summaries
              .map(summary -> requireSucceeded(table, summary))
              .returns(summaries.getType())
              .name("Pass Outcome");
    } else if (!env.getCheckpointConfig().isCheckpointingEnabled()) {
      env.enableCheckpointing(CHECKPOINT_INTERVAL_MS);
    }
    summaries.print();
    env.execute("Lance compaction of " + parsed.config.dataset().uri());
  }

  /**
   * One compaction pass of the table named by {@code options} ({@code path}, {@code storage.*},
   * {@code compaction.*}) as a job in {@code env}, waiting for it: what the SQL procedure runs.
   *
   * @return what the pass did (one summary per plan; a pass with nothing to compact has one)
   * @throws IllegalArgumentException for an invalid option, or a table config the compactor cannot
   *     read
   */
  public static List<CompactionSummary> compactOnce(
      StreamExecutionEnvironment env, Configuration options) throws Exception {
    CompactionConfig config = CompactionConfig.from(options);
    requireTable(config);
    List<CompactionSummary> summaries = new ArrayList<>();
    try (CloseableIterator<CompactionSummary> results =
        build(env, new CompactionJobArgs(config, true))
            .executeAndCollect("Lance compaction of " + config.dataset().uri())) {
      results.forEachRemaining(summaries::add);
    }
    return summaries;
  }

  /**
   * @param summaries what a {@link #compactOnce} pass did
   * @throws CompactionFailedException naming the table and the cause if the pass failed: a
   *     compaction's commit failed, or the planner could not look at the table (no summary)
   */
  @Internal
  public static void requireSucceeded(TableRef table, List<CompactionSummary> summaries) {
    if (summaries.isEmpty()) {
      throw failed(
          table,
          "the planner could not look at the table; the TaskManagers' log has the cause"
              + " (Lance Compaction Planner)");
    }
    summaries.forEach(summary -> requireSucceeded(table, summary));
  }

  private static CompactionSummary requireSucceeded(TableRef table, CompactionSummary summary) {
    if (summary.outcome() == CompactionSummary.Outcome.FAILED) {
      throw failed(table, summary.failure());
    }
    return summary;
  }

  private static CompactionFailedException failed(TableRef table, String cause) {
    return new CompactionFailedException(
        String.format(
            "Compaction of Lance table '%s' failed, nothing was committed: %s",
            Secrets.redactUri(table.uri()), cause));
  }

  /**
   * The passes source's operator id: the one Flink generated for it before it was fixed (the job
   * has had this shape since it came in), so that savepoints of the standalone job restore.
   */
  static final String PASSES_UID_HASH = "bc764cd8ddf7a0cff126f51c16239658";

  static DataStream<CompactionSummary> build(
      StreamExecutionEnvironment env, CompactionJobArgs args) {
    DataGeneratorSource<PlanRequest> passes =
        new DataGeneratorSource<>(
            index -> PlanRequest.PASS,
            args.once ? 1 : Long.MAX_VALUE,
            args.once
                ? RateLimiterStrategy.noOp()
                : RateLimiterStrategy.perSecond(1000.0 / args.config.triggerInterval().toMillis()),
            TypeInformation.of(PlanRequest.class));
    DataStream<PlanRequest> requests =
        env.fromSource(passes, WatermarkStrategy.noWatermarks(), "Lance Compaction Passes")
            .setUidHash(PASSES_UID_HASH)
            .setParallelism(1);
    return CompactionTopology.add(requests, args.config, CompactionTopology.Uids.STANDALONE);
  }

  /**
   * Fails before the job starts when there is no table at the path, or when its row-lineage config
   * is one the planner could only log, pass after pass.
   */
  private static void requireTable(CompactionConfig config) {
    String uri = config.dataset().uri();
    try (OpenTable table = OpenTable.latest(config.dataset())) {
      RowLineageConfig.of(table.dataset().getConfig(), uri);
    } catch (LanceDatasetException | IllegalArgumentException e) {
      System.err.println(e.getMessage());
      throw e;
    }
  }
}
