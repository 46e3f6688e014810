package dev.flinklance.compactor.plan;

/** What wakes the planner up. */
public enum PlanRequest {
  /** The sink committed a checkpoint: count it, compact if a trigger fires. */
  COMMIT,
  /** A standalone pass: compact whatever can be compacted now. */
  PASS
}
