package dev.flinklance.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.testing.TestClusters;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The same records through {@code DynamicLanceSink} and through Iceberg's {@code
 * DynamicIcebergSink}, each in its own job with checkpoints: 50 tables, half appended to, half
 * changed by key (upserts and deletes), every table gaining a column mid-stream while records of
 * the old schema keep coming. Every Lance table (read with lance-core) equals the Iceberg table of
 * the same name (read with Iceberg's generic reader) row by row, and both equal the model.
 */
class DynamicSinksAgreeITCase {
  private static final int TABLES = 50;

  @RegisterExtension
  static final MiniClusterExtension CLUSTER =
      TestClusters.create(TestClusters.SLOTS, Jobs.clusterConfig());

  @TempDir Path dir;

  @Test
  void theSameRecordsMakeTheSameTables() throws Exception {
    Workload records = Workload.mixed(TABLES, TABLES * 120L, 40);
    LanceSide lance = new LanceSide(dir.resolve("lance"));
    IcebergSide iceberg = new IcebergSide(dir.resolve("iceberg"));
    for (DynamicSinkUnderTest sink : List.of(lance, iceberg)) {
      Jobs.run(sink, records, RateLimiterStrategy.perCheckpoint(1_000), 2, 100);
    }

    Map<String, Map<Long, List<Object>>> model = records.model();
    for (String table : records.tables()) {
      Map<Long, List<Object>> lanceRows = lance.rows(table);
      assertThat(lanceRows).as("Lance table %s", table).isEqualTo(model.get(table));
      assertThat(iceberg.rows(table)).as("Iceberg table %s", table).isEqualTo(lanceRows);
      assertThat(lance.columns(table)).as("Lance table %s", table).isEqualTo(Workload.COLUMNS);
      assertThat(iceberg.columns(table)).as("Iceberg table %s", table).isEqualTo(Workload.COLUMNS);
      for (DynamicSinkUnderTest sink : List.of(lance, iceberg)) {
        assertThat(sink.committedCheckpoints(table))
            .as("%s, table %s: one commit per checkpoint, over several", sink.name(), table)
            .doesNotHaveDuplicates()
            .hasSizeGreaterThan(2);
      }
    }
  }
}
