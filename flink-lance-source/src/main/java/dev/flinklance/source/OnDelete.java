package dev.flinklance.source;

import java.util.Locale;
import org.apache.flink.annotation.PublicEvolving;

/**
 * What an append-only streaming read does with a version that deletes or updates rows ({@code
 * scan.on-delete}).
 */
@PublicEvolving
public enum OnDelete {
  /** Fail the job, naming the table and the version. */
  FAIL,
  /** Emit nothing for the version (neither its deletions nor its new rows) and go on. */
  SKIP;

  @Override
  public String toString() {
    return name().toLowerCase(Locale.ROOT);
  }
}
