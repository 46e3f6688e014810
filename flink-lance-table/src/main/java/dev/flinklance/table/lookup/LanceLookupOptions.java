package dev.flinklance.table.lookup;

import java.time.Duration;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.table.connector.source.lookup.LookupOptions;
import org.apache.flink.table.connector.source.lookup.LookupOptions.LookupCacheType;
import org.apache.flink.table.connector.source.lookup.LookupOptions.ReloadStrategy;
import org.apache.flink.table.connector.source.lookup.cache.trigger.PeriodicCacheReloadTrigger.ScheduleMode;

/**
 * How a lookup join ({@code JOIN t FOR SYSTEM_TIME AS OF ...}) reads a Lance table ({@code
 * lookup.*}): in the table's {@code WITH (...)}, a catalog table's options or an {@code OPTIONS}
 * hint. The cache options are Flink's {@link LookupOptions}, with the same keys, types and
 * defaults, read by Flink's own caches; they are declared here to say what they do on a Lance
 * table. {@code lookup.async} and {@code lookup.refresh-interval} are the connector's.
 */
@PublicEvolving
public final class LanceLookupOptions {
  public static final String PREFIX = "lookup.";

  public static final ConfigOption<LookupCacheType> CACHE =
      ConfigOptions.key(LookupOptions.CACHE_TYPE.key())
          .enumType(LookupCacheType.class)
          .defaultValue(LookupCacheType.NONE)
          .withDescription(
              "NONE: every lookup reads the table. PARTIAL: looked-up keys are cached"
                  + " (lookup.partial-cache.*; at least one of their limits is required). FULL: each"
                  + " task manager holds the joined columns of every row in memory, compact"
                  + " (Flink's binary rows in 1 MB pages, about 140 bytes a row of four columns),"
                  + " shared by its tasks of the join, and loads them again when the table has a"
                  + " new version, beside the loaded ones (so twice the memory while it loads);"
                  + " any key type.");

  public static final ConfigOption<Integer> MAX_RETRIES =
      ConfigOptions.key(LookupOptions.MAX_RETRIES.key())
          .intType()
          .defaultValue(3)
          .withDescription(
              "Retries of a lookup (or of a FULL cache load) that failed for a reason that may"
                  + " pass, an object store's error or timeout, before the job fails, after"
                  + " 100 ms, then twice as long each time, at most 5 s. A table"
                  + " dropped, replaced or changed in a column the join reads fails the job at"
                  + " once.");

  public static final ConfigOption<Duration> PARTIAL_CACHE_EXPIRE_AFTER_ACCESS =
      ConfigOptions.key(LookupOptions.PARTIAL_CACHE_EXPIRE_AFTER_ACCESS.key())
          .durationType()
          .noDefaultValue()
          .withDescription(
              "PARTIAL: a cached key is dropped when it was not looked up for this long.");

  public static final ConfigOption<Duration> PARTIAL_CACHE_EXPIRE_AFTER_WRITE =
      ConfigOptions.key(LookupOptions.PARTIAL_CACHE_EXPIRE_AFTER_WRITE.key())
          .durationType()
          .noDefaultValue()
          .withDescription(
              "PARTIAL: a cached key is dropped this long after it was read from the table; a"
                  + " change of its rows is seen at most this long plus lookup.refresh-interval"
                  + " after its commit.");

  public static final ConfigOption<Boolean> PARTIAL_CACHE_CACHE_MISSING_KEY =
      ConfigOptions.key(LookupOptions.PARTIAL_CACHE_CACHE_MISSING_KEY.key())
          .booleanType()
          .defaultValue(true)
          .withDescription("PARTIAL: also cache that a key has no rows.");

  public static final ConfigOption<Long> PARTIAL_CACHE_MAX_ROWS =
      ConfigOptions.key(LookupOptions.PARTIAL_CACHE_MAX_ROWS.key())
          .longType()
          .noDefaultValue()
          .withDescription("PARTIAL: at most this many keys are cached per task manager.");

  public static final ConfigOption<ReloadStrategy> FULL_CACHE_RELOAD_STRATEGY =
      ConfigOptions.key(LookupOptions.FULL_CACHE_RELOAD_STRATEGY.key())
          .enumType(ReloadStrategy.class)
          .defaultValue(ReloadStrategy.PERIODIC)
          .withDescription(
              "FULL: when to look for a new table version to load. PERIODIC: every"
                  + " lookup.full-cache.periodic-reload.interval. TIMED: at"
                  + " lookup.full-cache.timed-reload.iso-time every"
                  + " lookup.full-cache.timed-reload.interval-in-days days. The cache is loaded"
                  + " when the job starts, and again only when the table has a new version;"
                  + " lookups go on against the loaded one meanwhile.");

  public static final ConfigOption<Duration> FULL_CACHE_PERIODIC_RELOAD_INTERVAL =
      ConfigOptions.key(LookupOptions.FULL_CACHE_PERIODIC_RELOAD_INTERVAL.key())
          .durationType()
          .noDefaultValue()
          .withDescription("FULL, PERIODIC: the interval. Default: lookup.refresh-interval.");

  public static final ConfigOption<ScheduleMode> FULL_CACHE_PERIODIC_RELOAD_SCHEDULE_MODE =
      ConfigOptions.key(LookupOptions.FULL_CACHE_PERIODIC_RELOAD_SCHEDULE_MODE.key())
          .enumType(ScheduleMode.class)
          .defaultValue(ScheduleMode.FIXED_DELAY)
          .withDescription(
              "FULL, PERIODIC: FIXED_DELAY counts the interval from the end of a load, FIXED_RATE"
                  + " from its start.");

  public static final ConfigOption<String> FULL_CACHE_TIMED_RELOAD_ISO_TIME =
      ConfigOptions.key(LookupOptions.FULL_CACHE_TIMED_RELOAD_ISO_TIME.key())
          .stringType()
          .noDefaultValue()
          .withDescription(
              "FULL, TIMED: the time of day, ISO-8601: '10:15' (the JVM's time zone), '10:15Z',"
                  + " '10:15+07:00'.");

  public static final ConfigOption<Integer> FULL_CACHE_TIMED_RELOAD_INTERVAL_IN_DAYS =
      ConfigOptions.key(LookupOptions.FULL_CACHE_TIMED_RELOAD_INTERVAL_IN_DAYS.key())
          .intType()
          .defaultValue(1)
          .withDescription("FULL, TIMED: days between two looks.");

  public static final ConfigOption<Boolean> ASYNC =
      ConfigOptions.key(PREFIX + "async")
          .booleanType()
          .defaultValue(false)
          .withDescription(
              "Look up with Flink's async lookup function: the keys in flight"
                  + " (table.exec.async-lookup.buffer-capacity) are read in batches, one Lance"
                  + " query for up to 128 keys, on as many threads per task as processors. Not"
                  + " with lookup.cache FULL.");

  public static final ConfigOption<Duration> REFRESH_INTERVAL =
      ConfigOptions.key(PREFIX + "refresh-interval")
          .durationType()
          .defaultValue(Duration.ofMinutes(1))
          .withDescription(
              "How often a lookup task moves to the table's newest version, so that rows"
                  + " committed, updated or deleted since are seen (each task keeps one table"
                  + " version open; a lookup reads one version). 0 never moves; scan.version and"
                  + " scan.tag pin the version.");

  private LanceLookupOptions() {}
}
