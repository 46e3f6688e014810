package dev.flinklance.compactor.plan;

import org.apache.flink.annotation.Internal;

/** What wakes the planner up. */
@Internal
public enum PlanRequest {
  /** The sink committed a checkpoint: count it, compact if a trigger fires. */
  COMMIT,
  /** A standalone pass: compact whatever can be compacted now. */
  PASS
}
