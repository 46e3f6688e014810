package dev.flinklance.table.lookup;

import dev.flinklance.access.OpenTable;
import dev.flinklance.access.TableRef;
import dev.flinklance.access.VersionMark;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.table.connector.source.lookup.cache.trigger.CacheReloadTrigger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When a FULL lookup cache loads: at the start, then only when the table has a new version (or
 * another table is at the URI) at one of the looks Flink's trigger schedules ({@code
 * lookup.full-cache.*}). Flink's cache loader builds the new cache beside the old one and swaps
 * them, so lookups never wait for a reload. A look that cannot reach the table keeps the cache and
 * tries again at the next one; a table that is gone is left to the load, which fails the lookups
 * with the reason.
 */
final class NewVersionReloadTrigger implements CacheReloadTrigger {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(NewVersionReloadTrigger.class);

  private final TableRef table;
  private final CacheReloadTrigger schedule;
  private transient boolean loadedOnce;

  /** The latest version at the last look; null if that look failed. */
  private transient VersionMark seen;

  /**
   * @param schedule when to look for a new version; null loads once (a pinned version, or no
   *     refresh)
   */
  NewVersionReloadTrigger(TableRef table, CacheReloadTrigger schedule) {
    this.table = table;
    this.schedule = schedule;
  }

  @Override
  public void open(Context context) throws Exception {
    if (schedule == null) {
      context.triggerReload();
      return;
    }
    schedule.open(
        new Context() {
          @Override
          public long currentProcessingTime() {
            return context.currentProcessingTime();
          }

          @Override
          public long currentWatermark() {
            return context.currentWatermark();
          }

          @Override
          public CompletableFuture<Void> triggerReload() {
            return hasNewVersion()
                ? context.triggerReload()
                : CompletableFuture.completedFuture(null);
          }
        });
  }

  /** Runs on the schedule's one thread, and must not throw: the schedule would stop. */
  private boolean hasNewVersion() {
    boolean first = !loadedOnce;
    loadedOnce = true;
    VersionMark latest;
    try {
      latest =
          OpenTable.latestIfExists(table)
              .map(
                  open -> {
                    try (open) {
                      return VersionMark.of(open.dataset());
                    }
                  })
              .orElse(VersionMark.NO_TABLE);
    } catch (RuntimeException e) {
      LOG.warn(
          "Cannot look for a new version of {}; the lookup cache stays as it is until the next"
              + " look",
          table.uri(),
          e);
      seen = null;
      return first;
    }
    // a version of another table at the URI (dropped and created again) has the same number
    boolean load = first || !latest.equals(seen) || latest.equals(VersionMark.NO_TABLE);
    seen = latest;
    return load;
  }

  @Override
  public void close() throws Exception {
    if (schedule != null) {
      schedule.close();
    }
  }
}
