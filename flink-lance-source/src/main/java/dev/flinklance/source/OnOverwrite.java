package dev.flinklance.source;

import java.util.Locale;
import org.apache.flink.annotation.PublicEvolving;

/**
 * What a streaming read does with a version that replaced the table ({@code scan.on-overwrite}).
 */
@PublicEvolving
public enum OnOverwrite {
  /** Fail the job, naming the table and the version. */
  FAIL,
  /** Emit nothing for the version and go on. */
  SKIP,
  /** Emit every row of the version before as -D, then every row of the new version as +I. */
  CHANGELOG;

  @Override
  public String toString() {
    return name().toLowerCase(Locale.ROOT);
  }
}
