package dev.flinklance.compactor;

import dev.flinklance.access.LanceDatasetOptions;
import dev.flinklance.config.CommandLineArgs;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;

/** The command line of {@link LanceCompactionJob}, as compactor options. */
final class CompactionJobArgs {
  static final String USAGE =
      String.join(
          "\n",
          "Usage: LanceCompactionJob --path <uri> [--once | --interval <duration>]",
          "                          [--storage.<key> <value>]... [--target-rows-per-fragment <n>]",
          "                          [--cleanup-older-than <duration> [--side-file-min-age"
              + " <duration>]]",
          "  --path <uri>                      the Lance table (local path, file://, s3://, ...)",
          "  --once                            one compaction pass, then return",
          "  --interval <duration>             time between passes when running continuously"
              + " (default 1 h)",
          "  --storage.<key> <value>           Lance storage option, e.g. --storage.aws_region"
              + " eu-west-1",
          "  --target-rows-per-fragment <n>    rows per compacted fragment (default 1048576)",
          "  --cleanup-older-than <duration>   after each pass, remove versions older than this"
              + " (e.g. 7d, 0s), then the row-lineage side files no version references",
          "  --side-file-min-age <duration>    with --cleanup-older-than: keep unreferenced side"
              + " files younger than this (default 1 h; a compaction may be about to commit one)",
          "Durations use Flink's syntax: 30 s, 10min, 1h, 7d.");

  final CompactionConfig config;
  final boolean once;

  CompactionJobArgs(CompactionConfig config, boolean once) {
    this.config = config;
    this.once = once;
  }

  /** Command-line names of the compactor options the job takes. */
  private static final Map<String, ConfigOption<?>> OPTIONS =
      Map.of(
          "interval", LanceCompactionOptions.COMPACTION_TRIGGER_INTERVAL,
          "target-rows-per-fragment", LanceCompactionOptions.COMPACTION_TARGET_ROWS_PER_FRAGMENT,
          "cleanup-older-than", LanceCompactionOptions.COMPACTION_CLEANUP_OLDER_THAN,
          "side-file-min-age", LanceCompactionOptions.COMPACTION_SIDE_FILE_MIN_AGE);

  /**
   * @throws IllegalArgumentException naming the bad argument, with the usage text
   */
  static CompactionJobArgs parse(String[] args) {
    CommandLineArgs line;
    try {
      line =
          CommandLineArgs.parse(
              args,
              Set.of("once"),
              key ->
                  key.equals("path")
                      || OPTIONS.containsKey(key)
                      || (key.startsWith(LanceDatasetOptions.STORAGE_PREFIX)
                          && key.length() > LanceDatasetOptions.STORAGE_PREFIX.length()));
    } catch (IllegalArgumentException e) {
      throw usage(e.getMessage());
    }
    Configuration conf = new Configuration();
    line.withPrefix(LanceDatasetOptions.STORAGE_PREFIX).forEach(conf::setString);
    line.get("path").ifPresent(path -> conf.setString(LanceDatasetOptions.PATH.key(), path));
    OPTIONS.forEach(
        (name, option) -> line.get(name).ifPresent(value -> set(conf, name, option, value)));
    boolean once = line.has("once");
    if (once && line.has("interval")) {
      throw usage("--once and --interval exclude each other");
    }
    if (conf.get(LanceDatasetOptions.PATH) == null) {
      throw usage("--path is required");
    }
    try {
      return new CompactionJobArgs(CompactionConfig.from(conf), once);
    } catch (IllegalArgumentException e) {
      throw usage(e.getMessage());
    }
  }

  /** Parses the value now, so that a bad one is reported with its argument's name. */
  private static <T> void set(
      Configuration conf, String name, ConfigOption<T> option, String value) {
    conf.setString(option.key(), value);
    try {
      T parsed = conf.get(option);
      if (parsed instanceof Duration duration && duration.isNegative()) {
        throw new IllegalArgumentException("negative");
      }
    } catch (IllegalArgumentException e) {
      throw usage(String.format("invalid value '%s' for --%s", value, name));
    }
  }

  private static IllegalArgumentException usage(String problem) {
    return new IllegalArgumentException(problem + "\n" + USAGE);
  }
}
