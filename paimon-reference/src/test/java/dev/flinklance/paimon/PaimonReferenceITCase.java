package dev.flinklance.paimon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.testing.TestClusters;
import java.nio.file.Path;
import java.util.List;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The correctness part of both benchmarks, on small sizes: every compared table equals the replay
 * of the changelog after the load and the changes ({@link UpsertComparison}), and every compared
 * lookup join emits the feature row of its key for each record, once ({@link LookupComparison}).
 */
class PaimonReferenceITCase {
  private static final long SEED = 7;

  @RegisterExtension
  static final MiniClusterExtension CLUSTER =
      TestClusters.create(Sessions.PARALLELISM, Sessions.clusterConfig());

  @TempDir Path dir;

  @Test
  void everyTableEqualsTheReplayOfTheChangelog() throws Exception {
    Changes changes = new Changes(SEED, 2_000, 2_000);
    Replay replay = new Replay(changes);
    for (SqlTable table : UpsertComparison.tables(dir)) {
      assertThat(UpsertRun.run(table, changes, replay, 200).difference()).as(table.label).isNull();
    }
  }

  @Test
  void everyJoinEmitsTheFeatureRowOfEachRecordsKey() throws Exception {
    Features features = new Features(SEED, 2_000, 200);
    SqlTable lance = LookupComparison.lanceTable(dir);
    SqlTable paimon = LookupComparison.paimonTable(dir);
    for (SqlTable table : List.of(lance, paimon)) {
      LookupRun.load(table, features);
      table.readyForLookups();
    }
    for (LookupRun.Arm arm : LookupComparison.arms(lance, paimon, 1)) {
      assertThat(LookupRun.join(arm, features, 2_000).difference()).as(arm.label()).isNull();
    }
  }
}
