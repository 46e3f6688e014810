package dev.flinklance.e2e.job;

import dev.flinklance.sink.LanceSink;
import dev.flinklance.sink.LanceSinkBuilder;
import dev.flinklance.testing.Changelog;
import java.util.List;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;

/**
 * The upsert job the e2e tests submit over REST: {@link Changelog}'s deterministic changes
 * (inserts, updates, deletes over a bounded key space) from one checkpointed reader, a fixed number
 * per checkpoint so that every checkpoint changes most keys several times, into a Lance table with
 * primary key {@code id}, a checkpoint every 300 ms. Its job jar carries {@link Changelog} next to
 * this class (see {@link #CLASSES}).
 *
 * <p>Arguments: {@code <table-uri> <changes> <keys> <changes-per-checkpoint> <commit-user>}.
 */
public final class UpsertChangelogJob {
  /** What the job jar needs besides the connector and this package. */
  public static final List<Class<?>> CLASSES = List.of(Changelog.class);

  private UpsertChangelogJob() {}

  /** The changes the job writes; the test derives its reference model from the same. */
  public static Changelog changelog(long changes, long keys) {
    return new Changelog(changes, keys, keys / 2);
  }

  /** The changes from one checkpointed reader, in order, upserted by {@code id} into the sink. */
  static void changelogInto(
      StreamExecutionEnvironment env,
      Changelog changelog,
      RateLimiterStrategy rateLimit,
      LanceSinkBuilder<RowData> sink) {
    env.fromSource(changelog.source(rateLimit), WatermarkStrategy.noWatermarks(), "changelog")
        .setParallelism(1) // one reader: the changes of a key leave the source in order
        .uid("changelog")
        .sinkTo(sink.primaryKey("id").build())
        .uid("lance-sink")
        .name("lance");
  }

  public static void main(String[] args) throws Exception {
    String table = args[0];
    Changelog changelog = changelog(Long.parseLong(args[1]), Long.parseLong(args[2]));
    int perCheckpoint = Integer.parseInt(args[3]);
    String commitUser = args[4];

    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.enableCheckpointing(300);
    changelogInto(
        env,
        changelog,
        RateLimiterStrategy.perCheckpoint(perCheckpoint),
        LanceSink.forRowData(Changelog.ROW_TYPE).path(table).commitUser(commitUser));
    env.execute("e2e: changelog upserted into " + table);
  }
}
