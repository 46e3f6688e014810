package dev.flinklance.table.compat;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.connector.ChangelogMode;

/** Flink's {@link ChangelogMode}s, which Flink 2.0 extended with key-only deletes. */
@Internal
public final class ChangelogModes {
  private ChangelogModes() {}

  /**
   * An upsert sink's mode.
   *
   * @param keyOnlyDeletes whether deletes may carry the key alone (Flink 2.x; 1.20 sends rows)
   */
  public static ChangelogMode upsert(boolean keyOnlyDeletes) {
    return ChangelogMode.upsert(keyOnlyDeletes);
  }
}
