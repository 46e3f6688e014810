package dev.flinklance.e2e.job;

import dev.flinklance.sink.LanceSink;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;

/**
 * The DataStream job the e2e tests submit over REST, inside a job jar that bundles the shaded
 * connector (as a user's fat jar would): ids {@code 0..rows-1} from Flink's checkpointed data
 * generator, rate-limited so that the test can kill the TaskManager mid-run, into a Lance table
 * with a checkpoint every 500 ms.
 *
 * <p>Arguments: {@code <table-uri> <rows> <rows-per-second> <commit-user>}.
 */
public final class CheckpointedWriteJob {
  static final RowType ROW =
      (RowType)
          DataTypes.ROW(
                  DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
                  DataTypes.FIELD("payload", DataTypes.STRING()))
              .notNull()
              .getLogicalType();

  private CheckpointedWriteJob() {}

  public static void main(String[] args) throws Exception {
    String table = args[0];
    long rows = Long.parseLong(args[1]);
    double rowsPerSecond = Double.parseDouble(args[2]);
    String commitUser = args[3];

    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.enableCheckpointing(500);
    env.fromSource(
            new DataGeneratorSource<>(
                (GeneratorFunction<Long, RowData>) CheckpointedWriteJob::row,
                rows,
                RateLimiterStrategy.perSecond(rowsPerSecond),
                InternalTypeInfo.of(ROW)),
            WatermarkStrategy.noWatermarks(),
            "ids")
        .sinkTo(LanceSink.forRowData(ROW).path(table).commitUser(commitUser).build())
        .uid("lance-sink")
        .name("lance");
    env.execute("e2e: ids into " + table);
  }

  static RowData row(long id) {
    return GenericRowData.of(id, StringData.fromString("row-" + id));
  }
}
