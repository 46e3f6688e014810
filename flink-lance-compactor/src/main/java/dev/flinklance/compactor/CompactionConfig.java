package dev.flinklance.compactor;

import static dev.flinklance.access.LanceDatasetOptions.PATH;
import static dev.flinklance.compactor.LanceCompactionOptions.COMPACTION_CLEANUP_OLDER_THAN;
import static dev.flinklance.compactor.LanceCompactionOptions.COMPACTION_PARALLELISM;
import static dev.flinklance.compactor.LanceCompactionOptions.COMPACTION_SIDE_FILE_MIN_AGE;
import static dev.flinklance.compactor.LanceCompactionOptions.COMPACTION_TARGET_ROWS_PER_FRAGMENT;
import static dev.flinklance.compactor.LanceCompactionOptions.COMPACTION_TIMEOUT;
import static dev.flinklance.compactor.LanceCompactionOptions.COMPACTION_TRIGGER_COMMITS;
import static dev.flinklance.compactor.LanceCompactionOptions.COMPACTION_TRIGGER_INTERVAL;
import static dev.flinklance.compactor.LanceCompactionOptions.COMPACTION_TRIGGER_SMALL_FRAGMENTS;

import dev.flinklance.access.LanceDatasetOptions;
import dev.flinklance.access.TableRef;
import dev.flinklance.config.OptionChecks;
import java.io.Serializable;
import java.time.Duration;
import java.util.Optional;
import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.lance.compaction.CompactionOptions;

/**
 * The validated, immutable settings of one compactor. Every {@code compaction.*} option is checked
 * here, once, with a message that names the option.
 */
@Internal
public final class CompactionConfig implements Serializable {
  private static final long serialVersionUID = 1L;

  private final TableRef dataset;
  private final long targetRowsPerFragment;
  private final int triggerSmallFragments;
  private final int triggerCommits;
  private final Duration triggerInterval;
  private final Integer parallelism;
  private final Duration timeout;
  private final Duration cleanupOlderThan;
  private final Duration sideFileMinAge;

  private CompactionConfig(Configuration conf, TableRef dataset) {
    this.dataset = dataset;
    this.targetRowsPerFragment = conf.get(COMPACTION_TARGET_ROWS_PER_FRAGMENT);
    require(targetRowsPerFragment > 0, COMPACTION_TARGET_ROWS_PER_FRAGMENT, "must be positive");
    this.triggerSmallFragments = conf.get(COMPACTION_TRIGGER_SMALL_FRAGMENTS);
    require(triggerSmallFragments >= 2, COMPACTION_TRIGGER_SMALL_FRAGMENTS, "must be at least 2");
    this.triggerCommits = conf.get(COMPACTION_TRIGGER_COMMITS);
    require(triggerCommits >= 1, COMPACTION_TRIGGER_COMMITS, "must be at least 1");
    this.triggerInterval = conf.get(COMPACTION_TRIGGER_INTERVAL);
    require(isPositive(triggerInterval), COMPACTION_TRIGGER_INTERVAL, "must be positive");
    this.parallelism = conf.get(COMPACTION_PARALLELISM);
    require(parallelism == null || parallelism >= 1, COMPACTION_PARALLELISM, "must be at least 1");
    this.timeout = conf.get(COMPACTION_TIMEOUT);
    require(isPositive(timeout), COMPACTION_TIMEOUT, "must be positive");
    this.cleanupOlderThan = conf.get(COMPACTION_CLEANUP_OLDER_THAN);
    require(
        cleanupOlderThan == null || !cleanupOlderThan.isNegative(),
        COMPACTION_CLEANUP_OLDER_THAN,
        "must not be negative");
    this.sideFileMinAge = conf.get(COMPACTION_SIDE_FILE_MIN_AGE);
    require(isPositive(sideFileMinAge), COMPACTION_SIDE_FILE_MIN_AGE, "must be positive");
  }

  /**
   * The compactor of the table named by {@code path}, {@code storage.*} and the namespace that
   * serves it (see {@link LanceDatasetOptions#dataset}) in {@code conf}.
   *
   * @throws IllegalArgumentException naming the first invalid option
   */
  public static CompactionConfig from(Configuration conf) {
    String path = conf.get(PATH);
    require(path != null && !path.isBlank(), PATH, "must be set");
    TableRef dataset = LanceDatasetOptions.dataset(path, conf); // with its namespace, if any
    return new CompactionConfig(conf, dataset);
  }

  /**
   * The compactor of a table someone else already resolved (the sink's).
   *
   * @throws IllegalArgumentException naming the first invalid option
   */
  public static CompactionConfig forTable(Configuration conf, TableRef dataset) {
    return new CompactionConfig(conf, dataset);
  }

  private static boolean isPositive(Duration duration) {
    return !duration.isNegative() && !duration.isZero();
  }

  private static void require(boolean condition, ConfigOption<?> option, String problem) {
    OptionChecks.require(condition, option.key(), "Lance compaction", problem);
  }

  public TableRef dataset() {
    return dataset;
  }

  public long targetRowsPerFragment() {
    return targetRowsPerFragment;
  }

  public int triggerSmallFragments() {
    return triggerSmallFragments;
  }

  public int triggerCommits() {
    return triggerCommits;
  }

  public Duration triggerInterval() {
    return triggerInterval;
  }

  /** The rewrite workers' parallelism, if set. */
  public Optional<Integer> parallelism() {
    return Optional.ofNullable(parallelism);
  }

  public Duration timeout() {
    return timeout;
  }

  /** How old versions must be for cleanup after a compaction; empty: no cleanup. */
  public Optional<Duration> cleanupOlderThan() {
    return Optional.ofNullable(cleanupOlderThan);
  }

  public Duration sideFileMinAge() {
    return sideFileMinAge;
  }

  /** Lance's planner and rewrite options. */
  public CompactionOptions lanceOptions() {
    return CompactionOptions.builder().withTargetRowsPerFragment(targetRowsPerFragment).build();
  }
}
