package dev.flinklance.table.lookup;

import dev.flinklance.access.TableRef;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.table.connector.source.lookup.cache.trigger.CacheReloadTrigger;
import org.lance.Dataset;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When a FULL lookup cache loads: at the start, then only when the table has a new version at one
 * of the looks Flink's trigger schedules ({@code lookup.full-cache.*}). Flink's cache loader builds
 * the new cache beside the old one and swaps them, so lookups never wait for a reload. A look that
 * cannot reach the table keeps the cache and tries again at the next one; a table that is gone is
 * left to the load, which fails the lookups with the reason.
 */
final class NewVersionReloadTrigger implements CacheReloadTrigger {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(NewVersionReloadTrigger.class);
  private static final long NO_TABLE = -1;
  private static final long UNKNOWN = Long.MIN_VALUE;

  private final TableRef table;
  private final CacheReloadTrigger schedule;
  private transient boolean loadedOnce;
  private transient long seenVersion;

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
    long latest;
    try (BufferAllocator allocator = new RootAllocator()) {
      Optional<Dataset> opened = table.openIfExists(allocator);
      latest = opened.map(Dataset::version).orElse(NO_TABLE);
      opened.ifPresent(Dataset::close);
    } catch (RuntimeException e) {
      LOG.warn(
          "Cannot look for a new version of {}; the lookup cache stays as it is until the next"
              + " look",
          table.uri(),
          e);
      seenVersion = UNKNOWN;
      return first;
    }
    boolean load = first || latest != seenVersion || latest == NO_TABLE;
    seenVersion = latest;
    return load;
  }

  @Override
  public void close() throws Exception {
    if (schedule != null) {
      schedule.close();
    }
  }
}
