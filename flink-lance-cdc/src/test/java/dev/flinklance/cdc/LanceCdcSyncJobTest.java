package dev.flinklance.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.table.catalog.LanceCatalogFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.apache.flink.table.catalog.Catalog;
import org.apache.flink.table.factories.FactoryUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the job sets up before it runs: the catalog database, checkpoints, the pipeline. */
class LanceCdcSyncJobTest {
  @TempDir Path dir;

  @Test
  void buildRegistersTheDatabaseAndAddsSourceAndSink() throws Exception {
    String warehouse = dir.resolve("lake").toString();
    String[] args = args("inventory", "--checkpoint-interval", "5 s", "--parallelism", "3");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    LanceCdcSyncJob.build(env, args);
    assertThat(catalog(warehouse).listDatabases()).contains("inventory");
    assertThat(env.getCheckpointConfig().getCheckpointInterval()).isEqualTo(5_000);
    assertThat(env.getParallelism()).isEqualTo(3);
    StreamGraph graph = env.getStreamGraph();
    assertThat(graph.getStreamNodes().stream().map(StreamNode::getTransformationUID))
        .contains("lance-cdc-kafka-source");
    assertThat(graph.getStreamNodes().stream().map(StreamNode::getOperatorName))
        .anyMatch(name -> name.startsWith("Lance Tables"));

    // a second start finds the database registered
    LanceCdcSyncJob.build(StreamExecutionEnvironment.getExecutionEnvironment(), args);
    assertThat(catalog(warehouse).listDatabases()).containsOnlyOnce("inventory");
  }

  @Test
  void aCheckpointIntervalTheClusterSetsStays() {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.enableCheckpointing(1_234);
    LanceCdcSyncJob.build(env, args("db"));
    assertThat(env.getCheckpointConfig().getCheckpointInterval()).isEqualTo(1_234);
  }

  @Test
  void anInvalidDatabaseNameFailsBeforeAnythingRuns() {
    assertThatThrownBy(
            () ->
                LanceCdcSyncJob.build(
                    StreamExecutionEnvironment.getExecutionEnvironment(), args("a/b")))
        .hasMessageContaining("a/b");
  }

  private String[] args(String database, String... more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--bootstrap-servers",
                "127.0.0.1:1",
                "--topics",
                "dbserver1.inventory.customers",
                "--warehouse",
                dir.resolve("lake").toString(),
                "--database",
                database));
    args.addAll(List.of(more));
    return args.toArray(String[]::new);
  }

  private static Catalog catalog(String warehouse) {
    Catalog catalog =
        new LanceCatalogFactory()
            .createCatalog(
                new FactoryUtil.DefaultCatalogContext(
                    "check",
                    Map.of("warehouse", warehouse),
                    new Configuration(),
                    LanceCdcSyncJobTest.class.getClassLoader()));
    catalog.open();
    return catalog;
  }
}
