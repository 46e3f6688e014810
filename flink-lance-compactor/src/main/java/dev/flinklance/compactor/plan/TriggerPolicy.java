package dev.flinklance.compactor.plan;

import dev.flinklance.compactor.CompactionConfig;
import java.io.Serializable;

/** When to compact: the three triggers of {@code compaction.trigger.*}. */
final class TriggerPolicy implements Serializable {
  private static final long serialVersionUID = 1L;

  private final int smallFragments;
  private final int commits;
  private final long intervalMillis;

  TriggerPolicy(CompactionConfig config) {
    this.smallFragments = config.triggerSmallFragments();
    this.commits = config.triggerCommits();
    this.intervalMillis = config.triggerInterval().toMillis();
  }

  /**
   * @param candidates fragments that a compaction would rewrite (small, or with many deletions),
   *     not counting those an unfinished compaction is rewriting already
   */
  boolean fires(int candidates, long commitsSinceLast, long millisSinceLast) {
    if (candidates >= smallFragments) {
      return true;
    }
    return candidates >= 2 && (commitsSinceLast >= commits || millisSinceLast >= intervalMillis);
  }
}
