package dev.flinklance.compactor;

import java.time.Duration;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * Compaction options ({@code compaction.*}). The sink ({@code compaction.enabled}), the standalone
 * {@link LanceCompactionJob} and the SQL procedure read the same keys; {@link CompactionConfig}
 * validates them in one place. Which table is {@code path} and {@code storage.*} ({@link
 * dev.flinklance.access.LanceDatasetOptions}); the row-lineage spill is switched on in the Lance
 * table's own config (see docs/compaction.md).
 */
@PublicEvolving
public final class LanceCompactionOptions {

  /** Every option of the compactor starts with this prefix. */
  public static final String PREFIX = "compaction.";

  public static final ConfigOption<Boolean> COMPACTION_ENABLED =
      ConfigOptions.key("compaction.enabled")
          .booleanType()
          .defaultValue(false)
          .withDescription(
              "Compacts the table inside the sink's job, after the sink's commits. Ingest never"
                  + " waits for compaction and never fails because of it.");

  public static final ConfigOption<Long> COMPACTION_TARGET_ROWS_PER_FRAGMENT =
      ConfigOptions.key("compaction.target-rows-per-fragment")
          .longType()
          .defaultValue(1_048_576L)
          .withDescription(
              "Rows a compacted fragment aims for. Fragments with fewer rows (or with more than"
                  + " 10% of their rows deleted) are rewritten together.");

  public static final ConfigOption<Integer> COMPACTION_TRIGGER_SMALL_FRAGMENTS =
      ConfigOptions.key("compaction.trigger.small-fragments")
          .intType()
          .defaultValue(16)
          .withDescription(
              "Compact as soon as the table has this many fragments with fewer rows than"
                  + " compaction.target-rows-per-fragment.");

  public static final ConfigOption<Integer> COMPACTION_TRIGGER_COMMITS =
      ConfigOptions.key("compaction.trigger.commits")
          .intType()
          .defaultValue(100)
          .withDescription(
              "Compact after this many sink commits since the last compaction, if at least two"
                  + " fragments can be compacted.");

  public static final ConfigOption<Duration> COMPACTION_TRIGGER_INTERVAL =
      ConfigOptions.key("compaction.trigger.interval")
          .durationType()
          .defaultValue(Duration.ofHours(1))
          .withDescription(
              "Compact when this long has passed since the last compaction, if at least two"
                  + " fragments can be compacted. The standalone job's pass interval"
                  + " (--interval).");

  public static final ConfigOption<Integer> COMPACTION_PARALLELISM =
      ConfigOptions.key("compaction.parallelism")
          .intType()
          .noDefaultValue()
          .withDescription(
              "Parallelism of the rewrite workers. Default: the job's default parallelism.");

  public static final ConfigOption<Duration> COMPACTION_TIMEOUT =
      ConfigOptions.key("compaction.timeout")
          .durationType()
          .defaultValue(Duration.ofMinutes(30))
          .withDescription(
              "A rewrite task that runs longer is abandoned, and fragments of a compaction that"
                  + " has not committed after this long (a rewrite or its commit failed) are"
                  + " planned again.");

  public static final ConfigOption<Duration> COMPACTION_CLEANUP_OLDER_THAN =
      ConfigOptions.key("compaction.cleanup-older-than")
          .durationType()
          .noDefaultValue()
          .withDescription(
              "After each compaction (the standalone job: after each pass), Lance cleanup of"
                  + " table versions older than this (tagged versions are kept, and every"
                  + " version a streaming read registered with scan.consumer-id still needs,"
                  + " until its registration expires), then deletion of row-lineage side files no"
                  + " remaining version references. Default: no cleanup.");

  public static final ConfigOption<Duration> COMPACTION_SIDE_FILE_MIN_AGE =
      ConfigOptions.key("compaction.side-file-min-age")
          .durationType()
          .defaultValue(Duration.ofHours(1))
          .withDescription(
              "Row-lineage side files younger than this are never deleted, even when no version"
                  + " references them yet: a compaction may be about to commit one. A compaction"
                  + " whose side file is older than half of this when it commits is abandoned and"
                  + " planned again.");

  private LanceCompactionOptions() {}
}
