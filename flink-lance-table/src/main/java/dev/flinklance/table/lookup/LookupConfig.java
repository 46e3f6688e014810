package dev.flinklance.table.lookup;

import static dev.flinklance.table.lookup.LanceLookupOptions.ASYNC;
import static dev.flinklance.table.lookup.LanceLookupOptions.CACHE;
import static dev.flinklance.table.lookup.LanceLookupOptions.FULL_CACHE_PERIODIC_RELOAD_INTERVAL;
import static dev.flinklance.table.lookup.LanceLookupOptions.FULL_CACHE_PERIODIC_RELOAD_SCHEDULE_MODE;
import static dev.flinklance.table.lookup.LanceLookupOptions.FULL_CACHE_RELOAD_STRATEGY;
import static dev.flinklance.table.lookup.LanceLookupOptions.MAX_RETRIES;
import static dev.flinklance.table.lookup.LanceLookupOptions.REFRESH_INTERVAL;

import dev.flinklance.config.OptionChecks;
import java.time.Duration;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.connector.source.lookup.LookupOptions.LookupCacheType;
import org.apache.flink.table.connector.source.lookup.LookupOptions.ReloadStrategy;
import org.apache.flink.table.connector.source.lookup.cache.DefaultLookupCache;
import org.apache.flink.table.connector.source.lookup.cache.trigger.CacheReloadTrigger;
import org.apache.flink.table.connector.source.lookup.cache.trigger.PeriodicCacheReloadTrigger;
import org.apache.flink.table.connector.source.lookup.cache.trigger.TimedCacheReloadTrigger;

/**
 * The validated {@code lookup.*} settings of one lookup join. Every option is checked here, once,
 * with a message naming it; Flink's own builders ({@link DefaultLookupCache#fromConfig}, the reload
 * triggers' {@code fromConfig}) read the cache options, as they do for every connector.
 *
 * @param partialCache the PARTIAL cache, or null
 * @param fullCacheSchedule when a FULL cache looks for a new version (Flink's reload trigger), or
 *     null
 */
@Internal
public record LookupConfig(
    LookupCacheType cache,
    int maxRetries,
    boolean async,
    Duration refreshInterval,
    DefaultLookupCache partialCache,
    CacheReloadTrigger fullCacheSchedule) {

  private static final String KIND = "lookup";
  private static final String PARTIAL_PREFIX = LanceLookupOptions.PREFIX + "partial-cache.";
  private static final String FULL_PREFIX = LanceLookupOptions.PREFIX + "full-cache.";

  /**
   * @param tableOptions the table's options (other keys are ignored)
   * @throws IllegalArgumentException naming the first invalid option
   */
  public static LookupConfig from(Map<String, String> tableOptions) {
    Configuration options = Configuration.fromMap(tableOptions);
    LookupCacheType cache = parse(options, CACHE);
    int maxRetries = parse(options, MAX_RETRIES);
    require(maxRetries >= 0, MAX_RETRIES, "must not be negative, got " + maxRetries);
    boolean async = parse(options, ASYNC);
    Duration refresh = parse(options, REFRESH_INTERVAL);
    require(!refresh.isNegative(), REFRESH_INTERVAL, "must not be negative");
    requireOnlyFor(cache, LookupCacheType.PARTIAL, PARTIAL_PREFIX, tableOptions);
    requireOnlyFor(cache, LookupCacheType.FULL, FULL_PREFIX, tableOptions);
    DefaultLookupCache partial = null;
    CacheReloadTrigger schedule = null;
    if (cache == LookupCacheType.PARTIAL) {
      partial = flinks(() -> DefaultLookupCache.fromConfig(options));
    } else if (cache == LookupCacheType.FULL) {
      require(
          !async,
          ASYNC,
          "cannot be combined with '"
              + CACHE.key()
              + "' = 'FULL': the FULL cache answers from"
              + " memory");
      schedule = fullCacheSchedule(options, refresh);
    }
    return new LookupConfig(cache, maxRetries, async, refresh, partial, schedule);
  }

  /**
   * Flink's trigger for the FULL cache's looks at the table: PERIODIC every {@code
   * lookup.full-cache.periodic-reload.interval} (default: the refresh interval), or TIMED. Null
   * when nothing is to be looked at: PERIODIC without an interval and a refresh interval of 0.
   */
  private static CacheReloadTrigger fullCacheSchedule(Configuration options, Duration refresh) {
    if (parse(options, FULL_CACHE_RELOAD_STRATEGY) == ReloadStrategy.TIMED) {
      return flinks(() -> TimedCacheReloadTrigger.fromConfig(options));
    }
    Duration interval = parse(options, FULL_CACHE_PERIODIC_RELOAD_INTERVAL);
    if (interval == null) {
      if (refresh.isZero()) {
        return null;
      }
      interval = refresh;
    }
    require(
        !interval.isNegative() && !interval.isZero(),
        FULL_CACHE_PERIODIC_RELOAD_INTERVAL,
        "must be positive");
    return new PeriodicCacheReloadTrigger(
        interval, parse(options, FULL_CACHE_PERIODIC_RELOAD_SCHEDULE_MODE));
  }

  /** A cache's options set for another cache would be silently ignored: an error instead. */
  private static void requireOnlyFor(
      LookupCacheType cache, LookupCacheType owner, String prefix, Map<String, String> options) {
    if (cache == owner) {
      return;
    }
    options.keySet().stream()
        .filter(key -> key.startsWith(prefix))
        .sorted()
        .findFirst()
        .ifPresent(
            key -> {
              throw new IllegalArgumentException(
                  String.format(
                      "Invalid lookup option '%s': it applies to '%s' = '%s', but '%s' is %s",
                      key, CACHE.key(), owner, CACHE.key(), cache));
            });
  }

  /** Flink's builders name the option in their message. */
  private static <T> T flinks(Supplier<T> build) {
    try {
      return build.get();
    } catch (RuntimeException e) { // IllegalArgumentException, DateTimeParseException
      throw new IllegalArgumentException("Invalid lookup options: " + e.getMessage(), e);
    }
  }

  private static <T> T parse(Configuration options, ConfigOption<T> option) {
    return OptionChecks.parse(options, option, KIND);
  }

  private static void require(boolean condition, ConfigOption<?> option, String problem) {
    OptionChecks.require(condition, option.key(), KIND, problem);
  }
}
