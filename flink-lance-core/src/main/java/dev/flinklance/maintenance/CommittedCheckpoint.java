package dev.flinklance.maintenance;

import org.apache.flink.annotation.Internal;

/**
 * What a sink tells table maintenance after each commit: one checkpoint's changes landed in the
 * table, as one stamped Lance transaction. Maintenance (compaction, index upkeep, cleanup) counts
 * these to decide when to run; it learns everything else from the table itself.
 *
 * @param checkpointId the checkpoint whose changes landed (Long.MAX_VALUE at the end of the input)
 * @param run the sink run that committed it
 * @param runSeq the commit's number in its run
 */
@Internal
public record CommittedCheckpoint(long checkpointId, String run, long runSeq) {}
