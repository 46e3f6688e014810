package dev.flinklance.compactor.plan;

/**
 * How the planner answers plans that concurrent deletes keep preempting: an upsert table whose sink
 * deletes rows from the fragments being rewritten at every checkpoint (lance-core 7.0.0 cannot
 * carry a delete over to a rewrite of its fragment, so such a rewrite is dropped). Planning again
 * at once, as soon as the table shows the delete, sends the committer doomed plans faster than it
 * can drop them, each covering more fragments than the one before. After a plan that a delete
 * preempted whole, the next one waits ({@link #FIRST_WAIT_MILLIS}, doubling with each such plan in
 * a row, at most {@link #MAX_WAIT_MILLIS}) and its tasks rewrite fewer adjacent fragments ({@link
 * #FIRST_MAX_RUN}, then half of that, down to 2): the rewrites that no delete touched commit on
 * their own. A plan of which some rewrites committed and some were preempted keeps the run length
 * and waits no more; one that committed whole ends the streak. Used by one thread at a time.
 */
final class PreemptionBackoff {
  static final long FIRST_WAIT_MILLIS = 200;
  static final long MAX_WAIT_MILLIS = 5_000;
  static final int FIRST_MAX_RUN = 8;

  private int streak;
  private long notBeforeMillis;

  void preempted(long nowMillis) {
    streak++;
    long wait = FIRST_WAIT_MILLIS << Math.min(streak - 1, 16);
    notBeforeMillis = nowMillis + Math.min(wait, MAX_WAIT_MILLIS);
  }

  void partlyCommitted() {
    notBeforeMillis = 0;
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
}
