package dev.flinklance.table.lookup;

import dev.flinklance.concurrent.NativeWorkers;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.function.Supplier;
import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.table.connector.source.lookup.cache.trigger.CacheReloadTrigger;
import org.apache.flink.table.types.logical.RowType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A FULL lookup cache, shared by the tasks of a TaskManager that join the same table the same way
 * (as Flink shares its own FULL cache): the first task to open it starts its reload trigger, which
 * loads at once and then on a new table version; the last to close it stops it. A reload builds the
 * next {@link CachedRows} beside the current one and swaps it in, so lookups never wait for one;
 * only the first load makes them wait. A load that fails (after {@code lookup.max-retries} retries,
 * or at once for a table dropped, replaced or without a joined column) fails every lookup until a
 * later load succeeds.
 */
final class FullCache {
  private static final Logger LOG = LoggerFactory.getLogger(FullCache.class);

  /**
   * What makes two joins' caches the same: the rows they hold and when they reload. The table by
   * its URI and storage options as configured (a namespace's vended credentials change).
   */
  record Key(
      String uri,
      Map<String, String> storageOptions,
      Long version,
      String tag,
      RowType producedType,
      List<String> keyColumns,
      String filter,
      int maxRetries,
      Duration refreshInterval,
      Map<String, String> reloadOptions) {

    static Key of(LookupSpec spec, Map<String, String> reloadOptions) {
      return new Key(
          spec.table().uri(),
          spec.table().configuredStorageOptions(),
          spec.version(),
          spec.tag(),
          spec.producedType(),
          spec.keyColumns(),
          spec.filter(),
          spec.maxRetries(),
          spec.refreshInterval(),
          reloadOptions);
    }
  }

  private static final Map<Key, FullCache> SHARED = new HashMap<>();

  private final Key key;
  private final String uri;
  private final FullCacheLoader loader;
  private final CacheReloadTrigger trigger;
  private final ExecutorService loads;
  private final CompletableFuture<Void> firstLoad = new CompletableFuture<>();

  /** What a task opening the cache waits for: the first load, or the load after a failure. */
  private volatile CompletableFuture<Void> ready = firstLoad;

  private volatile CachedRows rows;
  private volatile Exception failure;
  private volatile long version = -1;
  private volatile long loadMillis = -1;
  private int users; // guarded by SHARED

  private FullCache(LookupSpec spec, Key key, CacheReloadTrigger trigger) {
    this.key = key;
    this.uri = spec.table().uri();
    this.loader = new FullCacheLoader(spec);
    this.trigger = trigger;
    this.loads = NativeWorkers.singleThread("lance-full-cache-load");
  }

  /**
   * The cache of {@code spec}'s join, started by this call if no task of this TaskManager has it
   * open.
   *
   * @param reloadOptions the join's options that say when the cache reloads
   * @param trigger when the cache reloads, if this call starts it
   */
  static FullCache acquire(
      LookupSpec spec, Map<String, String> reloadOptions, Supplier<CacheReloadTrigger> trigger)
      throws Exception {
    Key key = Key.of(spec, reloadOptions);
    synchronized (SHARED) {
      FullCache cache = SHARED.get(key);
      if (cache == null) {
        cache = new FullCache(spec, key, trigger.get());
        cache.start();
        SHARED.put(key, cache);
      } else if (cache.failure != null) {
        // a task restarted after the failure: load again, as a new cache would, and wait for it
        cache.ready = cache.reload();
      }
      cache.users++;
      return cache;
    }
  }

  private void start() throws Exception {
    try {
      trigger.open(
          new CacheReloadTrigger.Context() {
            @Override
            public long currentProcessingTime() {
              return System.currentTimeMillis();
            }

            @Override
            public long currentWatermark() {
              return Long.MIN_VALUE;
            }

            @Override
            public CompletableFuture<Void> triggerReload() {
              return reload();
            }
          });
    } catch (Exception e) {
      stop();
      throw e;
    }
  }

  private CompletableFuture<Void> reload() {
    return CompletableFuture.runAsync(this::load, loads);
  }

  private void load() {
    long start = System.nanoTime();
    try {
      FullCacheLoader.Loaded loaded = loader.load();
      rows = loaded.rows();
      version = loaded.version();
      failure = null;
      loadMillis = (System.nanoTime() - start) / 1_000_000;
      LOG.info(
          "Loaded the lookup cache of {} from version {}: {} rows, {} MB, in {} ms",
          uri,
          loaded.version(),
          loaded.rows().rows(),
          loaded.rows().bytes() >> 20,
          loadMillis);
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      LOG.warn("Cannot load the lookup cache of {}", uri, e);
      failure = e;
    } finally {
      firstLoad.complete(null);
    }
  }

  /**
   * Waits for the first load (or the load after a failure), as Flink's FULL cache does when its
   * function opens.
   */
  void awaitLoad() throws InterruptedException {
    try {
      ready.get();
    } catch (ExecutionException e) {
      throw new IllegalStateException(e); // load() catches what it throws
    }
  }

  /**
   * The rows of the last load.
   *
   * @throws RuntimeException the failure of the last load, if it failed
   */
  CachedRows rows() {
    Exception failed = failure;
    if (failed instanceof RuntimeException runtime) {
      throw runtime;
    } else if (failed != null) {
      throw new IllegalStateException("Cannot load the lookup cache of " + uri, failed);
    }
    CachedRows loaded = rows;
    if (loaded == null) {
      throw new IllegalStateException("the lookup cache is not loaded yet");
    }
    return loaded;
  }

  /** The version of the last load; -1 before it. */
  long version() {
    return version;
  }

  /** How long the last load took; -1 before it. */
  long loadMillis() {
    return loadMillis;
  }

  /** The heap the loaded rows hold; 0 before the first load. */
  long bytes() {
    CachedRows loaded = rows;
    return loaded == null ? 0 : loaded.bytes();
  }

  /** The rows loaded; 0 before the first load. */
  long size() {
    CachedRows loaded = rows;
    return loaded == null ? 0 : loaded.rows();
  }

  /** How many caches tasks of this JVM have open. */
  @VisibleForTesting
  static int open() {
    synchronized (SHARED) {
      return SHARED.size();
    }
  }

  /** Ends one task's use; the last one stops the reloads. */
  void release() {
    synchronized (SHARED) {
      if (--users > 0) {
        return;
      }
      SHARED.remove(key, this);
    }
    stop();
  }

  private void stop() {
    try {
      trigger.close();
    } catch (Exception e) {
      LOG.warn("Cannot stop the reloads of the lookup cache of {}", uri, e);
    }
    if (!NativeWorkers.stop(loads, NativeWorkers.STOP_WAIT)) {
      LOG.warn("A load of the lookup cache of {} is still running", uri);
    }
  }
}
