package dev.flinklance.compactor.commit;

import org.apache.flink.annotation.PublicEvolving;

/**
 * What one compaction did; the compaction committer emits one per plan (the standalone job prints
 * them, tests read them).
 *
 * @param version the table version of the compaction commit; -1 if nothing was committed
 * @param fragmentsBefore the table's fragments when the plan was made
 * @param fragmentsAfter the table's fragments after the commit (when the plan was made, if nothing
 *     was committed)
 * @param failure why the compaction failed ({@link Outcome#FAILED}), otherwise null
 */
@PublicEvolving
public record CompactionSummary(
    String planId,
    Outcome outcome,
    long version,
    int fragmentsBefore,
    int fragmentsAfter,
    int fragmentsRewritten,
    int fragmentsWritten,
    long rowsRewritten,
    long bytesRewritten,
    long lineageBytesSpilled,
    int groupsPreempted,
    int tasksFailed,
    long durationMs,
    String failure) {

  /** How a compaction ended. */
  @PublicEvolving
  public enum Outcome {
    /** Committed now. */
    COMMITTED,
    /** Found in the table's history: committed before a failure or restore. */
    ALREADY_COMMITTED,
    /** Nothing left to commit: every rewrite failed or was preempted by a concurrent change. */
    NOTHING_COMMITTED,
    /** A pass that found nothing to compact. */
    NOTHING_TO_COMPACT,
    /**
     * The commit failed (the table's storage refused it, an invalid table config, a check before or
     * after the commit): the table is as it was, and the fragments are planned again later.
     */
    FAILED
  }
}
