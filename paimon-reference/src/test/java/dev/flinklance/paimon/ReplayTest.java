package dev.flinklance.paimon;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;

/** The checks of both benchmarks see a table or a join that is not what it should be. */
class ReplayTest {
  private final Changes changes = new Changes(3, 1_000, 1_000);
  private final Replay replay = new Replay(changes);

  @Test
  void theReplayOfTheChangelogEqualsItself() {
    assertThat(replay.differences(rows(replay).iterator())).isNull();
  }

  @Test
  void aTableWithoutTheLastChangeDiffers() {
    Changes fewer = new Changes(3, 1_000, 999);
    assertThat(replay.differences(rows(new Replay(fewer)).iterator())).isNotNull();
  }

  @Test
  void aRowTwiceDiffers() {
    List<Row> rows = rows(replay);
    rows.add(rows.get(0));
    assertThat(replay.differences(rows.iterator())).contains("twice");
  }

  @Test
  void aRecordJoinedTwiceAndAnotherMissedDiffer() {
    long hash = JoinCheck.expectedHash(100) - Changes.mix(5) + Changes.mix(6);
    assertThat(new JoinCheck.Outcome(100, hash, 0, 0, 0).difference(100)).isNotNull();
    assertThat(new JoinCheck.Outcome(100, JoinCheck.expectedHash(100), 0, 0, 0).difference(100))
        .isNull();
  }

  private List<Row> rows(Replay of) {
    List<Row> rows = new ArrayList<>();
    for (long id = 0; id < changes.rows + changes.changes; id++) {
      Row row = of.expected(id);
      if (row != null) {
        rows.add(row);
      }
    }
    return rows;
  }
}
