package dev.flinklance.iceberg;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * How long after each checkpoint completed its commits landed, over all tables of a run: a
 * checkpoint's commit ms is its last table commit minus its completion. The last commit, because a
 * checkpoint's data is in every table only then. {@code untimed} counts checkpoints that committed
 * but whose completion was not noted (none expected; printed when there are).
 */
record CommitLatency(List<Long> millis, int untimed) {

  /**
   * @param completed when each checkpoint completed, by id ({@link JobTimes})
   */
  static CommitLatency of(
      DynamicSinkUnderTest sink, List<String> tables, Map<Long, Long> completed) {
    Map<Long, Long> lastCommit = new TreeMap<>();
    for (String table : tables) {
      for (DynamicSinkUnderTest.Commit commit : sink.commits(table)) {
        lastCommit.merge(commit.checkpointId(), commit.millis(), Math::max);
      }
    }
    List<Long> millis = new ArrayList<>();
    int untimed = 0;
    for (Map.Entry<Long, Long> checkpoint : lastCommit.entrySet()) {
      Long completion = completed.get(checkpoint.getKey());
      if (completion == null) {
        untimed++;
      } else {
        millis.add(checkpoint.getValue() - completion);
      }
    }
    return new CommitLatency(millis, untimed);
  }
}
