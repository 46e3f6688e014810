package dev.flinklance.source;

import java.util.Locale;
import org.apache.flink.annotation.PublicEvolving;

/**
 * What a streaming read does with a version that drops or renames a column it reads ({@code
 * scan.on-schema-change}). A column added goes on either way (NULL in the rows before it).
 */
@PublicEvolving
public enum OnSchemaChange {
  /** Fail the job, naming the table, the version and the change. */
  FAIL,
  /** Go on: the column reads as NULL from that version on (if it may). */
  CONTINUE;

  @Override
  public String toString() {
    return name().toLowerCase(Locale.ROOT);
  }
}
