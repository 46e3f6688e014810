package dev.flinklance.compactor.plan;

/**
 * How the planner answers plans that concurrent deletes keep preempting: an upsert table whose sink
 * deletes rows from the fragments being rewritten at every checkpoint (lance-core 7.0.0 cannot
 * carry a delete over to a rewrite of its fragment, so such a rewrite is dropped). Planning again
 * at once loses again, and every lost plan covers more fragments than the one before. After a
 * preempted plan the next one waits ({@link #FIRST_WAIT_MILLIS}, doubling with each preemption in a
 * row, at most {@link #MAX_WAIT_MILLIS}), and its tasks rewrite fewer adjacent fragments ({@link
 * #FIRST_MAX_RUN}, then half of that, down to 2): the rewrites that no delete touched commit on
 * their own. A plan that commits ends the streak. Used by one thread at a time.
 */
final class PreemptionBackoff {
  static final long FIRST_WAIT_MILLIS = 1_000;
  static final long MAX_WAIT_MILLIS = 60_000;
  static final int FIRST_MAX_RUN = 8;

  private int streak;
  private long notBeforeMillis;

  void preempted(long nowMillis) {
    streak++;
    long wait = FIRST_WAIT_MILLIS << Math.min(streak - 1, 16);
    notBeforeMillis = nowMillis + Math.min(wait, MAX_WAIT_MILLIS);
  }

  void committed() {
    streak = 0;
    notBeforeMillis = 0;
  }

  boolean waiting(long nowMillis) {
    return nowMillis < notBeforeMillis;
  }

  /** The most adjacent fragments one task may rewrite now. */
  int maxRun() {
    return streak == 0 ? Integer.MAX_VALUE : Math.max(2, FIRST_MAX_RUN >> Math.min(streak - 1, 3));
  }

  int streak() {
    return streak;
  }
}
