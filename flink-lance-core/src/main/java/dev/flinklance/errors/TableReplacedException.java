package dev.flinklance.errors;

import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.PublicEvolving;

/**
 * The table at a URI is not the table a job was writing: it was deleted and recreated (or rolled
 * back by deleting versions) while the job ran. Writing on would leave the new table unreadable, so
 * the job stops at once: no restart can fix it.
 */
@PublicEvolving
public class TableReplacedException extends PermanentDatasetException {
  private static final long serialVersionUID = 1L;

  private static final String GONE = "there is no table at the URI any more";

  private final String evidence;

  /** The table is gone: dropped, maybe not (yet) replaced. */
  @Internal
  public static TableReplacedException gone(String uri) {
    return new TableReplacedException(uri, GONE);
  }

  public TableReplacedException(String uri, String evidence) {
    super(
        uri,
        "the table was replaced while this job was writing to it ("
            + evidence
            + "). Nothing more is committed to it. Start the job without its state (no"
            + " savepoint) to write to the new table",
        null);
    this.evidence = evidence;
  }

  /** Whether there is no table at the URI at all (it was dropped). */
  public boolean tableGone() {
    return GONE.equals(evidence);
  }

  /** What shows that the table was replaced, for a reader's own message. */
  public String evidence() {
    return evidence;
  }
}
