package dev.flinklance.source;

import java.util.Locale;
import org.apache.flink.annotation.PublicEvolving;

/** Where a streaming read starts ({@code scan.startup.mode}). */
@PublicEvolving
public enum StartupMode {
  /** The table at its latest version, then every change after it. */
  FULL,
  /** The changes after the latest version. */
  LATEST,
  /** The changes after {@code scan.startup.version}. */
  VERSION,
  /** The changes of the versions committed after {@code scan.startup.timestamp-millis}. */
  TIMESTAMP;

  /** As written in options: {@code full}, {@code latest}, ... (parsed in any case). */
  @Override
  public String toString() {
    return name().toLowerCase(Locale.ROOT);
  }
}
