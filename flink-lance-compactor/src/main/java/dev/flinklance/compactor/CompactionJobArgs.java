package dev.flinklance.compactor;

import dev.flinklance.dataset.LanceDatasetOptions;
import java.time.Duration;
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

  /**
   * @throws IllegalArgumentException naming the bad argument, with the usage text
   */
  static CompactionJobArgs parse(String[] args) {
    Configuration conf = new Configuration();
    boolean once = false;
    boolean interval = false;
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (arg.equals("--once")) {
        once = true;
        continue;
      }
      if (!arg.startsWith("--") || i + 1 >= args.length || args[i + 1].startsWith("--")) {
        throw usage(
            arg.startsWith("--")
                ? "missing value for " + arg
                : "unexpected argument '" + arg + "'");
      }
      String value = args[++i];
      String name = arg.substring(2);
      switch (name) {
        case "path" -> conf.setString(LanceDatasetOptions.PATH.key(), value);
        case "interval" -> {
          interval = true;
          set(conf, arg, LanceCompactionOptions.COMPACTION_TRIGGER_INTERVAL, value);
        }
        case "target-rows-per-fragment" ->
            set(conf, arg, LanceCompactionOptions.COMPACTION_TARGET_ROWS_PER_FRAGMENT, value);
        case "cleanup-older-than" ->
            set(conf, arg, LanceCompactionOptions.COMPACTION_CLEANUP_OLDER_THAN, value);
        case "side-file-min-age" ->
            set(conf, arg, LanceCompactionOptions.COMPACTION_SIDE_FILE_MIN_AGE, value);
        default -> {
          if (!name.startsWith(LanceDatasetOptions.STORAGE_PREFIX)
              || name.length() == LanceDatasetOptions.STORAGE_PREFIX.length()) {
            throw usage("unknown argument '" + arg + "'");
          }
          conf.setString(name, value);
        }
      }
    }
    if (once && interval) {
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
      Configuration conf, String arg, ConfigOption<T> option, String value) {
    conf.setString(option.key(), value);
    try {
      T parsed = conf.get(option);
      if (parsed instanceof Duration duration && duration.isNegative()) {
        throw new IllegalArgumentException("negative");
      }
    } catch (IllegalArgumentException e) {
      throw usage(String.format("invalid value '%s' for %s", value, arg));
    }
  }

  private static IllegalArgumentException usage(String problem) {
    return new IllegalArgumentException(problem + "\n" + USAGE);
  }
}
