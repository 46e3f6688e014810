package dev.flinklance.sink.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.sink.LanceSink;
import dev.flinklance.sink.LanceSinkOptions;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestClusters;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * One checkpoint of a million changed keys, on Flink's default checkpoint storage (the JobManager's
 * memory, at most 5 MB of state per handle): the keys travel in key files beside the table, not in
 * the committer's state (inline they take ~10 MB, and the checkpoint and so the job failed).
 */
class UpsertLargeCheckpointITCase {
  private static final long CHANGES = 1_000_000;
  private static final RowType ROW_TYPE =
      (RowType)
          DataTypes.ROW(
                  DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
                  DataTypes.FIELD("v", DataTypes.INT()))
              .notNull()
              .getLogicalType();

  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  @TempDir Path dir;

  @Test
  void aMillionChangesInOneCheckpointCommitWithTheDefaultCheckpointStorage() throws Exception {
    String table = dir.resolve("t").toString();
    org.apache.flink.configuration.Configuration conf =
        new org.apache.flink.configuration.Configuration();
    conf.setString("execution.checkpointing.storage", "jobmanager");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(2);
    env.enableCheckpointing(3_600_000);
    env.fromSequence(0, CHANGES - 1)
        .map(id -> (RowData) GenericRowData.of(id, (int) (id % 1000)))
        .returns(InternalTypeInfo.of(ROW_TYPE))
        .sinkTo(
            LanceSink.forRowData(ROW_TYPE)
                .path(table)
                .primaryKey("id")
                .set(LanceSinkOptions.SINK_UPSERT_MAX_BUFFER_SIZE, MemorySize.ofMebiBytes(512))
                .build());
    env.execute();

    assertThat(LanceTestTables.readLongs(table, "id").stream().sorted().toList())
        .isEqualTo(LongStream.range(0, CHANGES).boxed().toList());
    assertThat(keyFiles(table)).as("key files were written, and deleted once committed").isEmpty();
    assertThat(Files.isDirectory(Path.of(table, "_keys"))).isTrue();
  }

  static List<Path> keyFiles(String table) throws Exception {
    Path keys = Path.of(table, "_keys");
    if (!Files.isDirectory(keys)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(keys)) {
      return files.toList();
    }
  }
}
