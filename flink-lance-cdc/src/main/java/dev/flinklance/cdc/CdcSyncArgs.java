package dev.flinklance.cdc;

import dev.flinklance.access.LanceDatasetOptions;
import dev.flinklance.config.CommandLineArgs;
import dev.flinklance.sink.InvalidRecordPolicy;
import dev.flinklance.sink.LanceSinkOptions;
import dev.flinklance.sink.dynamic.DynamicLanceSink;
import dev.flinklance.sink.dynamic.DynamicLanceSinkBuilder;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.util.TimeUtils;

/** The command line of {@link LanceCdcSyncJob}. */
@Internal
final class CdcSyncArgs {
  static final String USAGE =
      String.join(
          "\n",
          "Usage: LanceCdcSyncJob --bootstrap-servers <host:port,...>",
          "                       (--topics <topic,...> | --topic-pattern <regex>)",
          "                       --warehouse <uri> --database <name> [options]",
          "  --bootstrap-servers <list>        the Kafka brokers",
          "  --topics <topic,...>              topics of Debezium JSON messages (one per table, or"
              + " one for many)",
          "  --topic-pattern <regex>           instead of --topics: every topic whose name matches",
          "  --group-id <id>                   Kafka consumer group (default lance-cdc-sync)",
          "  --starting-offsets <mode>         earliest (default), latest, or group (the group's"
              + " committed offsets, earliest where it has none)",
          "  --kafka.<property> <value>        a Kafka consumer property, e.g."
              + " --kafka.security.protocol SSL",
          "  --warehouse <uri>                 the Lance catalog's warehouse (local path, file://,"
              + " s3://, ...)",
          "  --database <name>                 the catalog database the tables go to (created if"
              + " missing)",
          "  --include-tables <regex>          sync only the source tables whose name matches"
              + " (default: all)",
          "  --exclude-tables <regex>          leave out the source tables whose name matches",
          "  --table-prefix <text>             Lance table name = prefix + source table name +"
              + " suffix",
          "  --table-suffix <text>",
          "  --checkpoint-interval <duration>  (default 30 s) one commit per table per checkpoint",
          "  --parallelism <n>                 the job's parallelism",
          "  --storage.<key> <value>           Lance storage option, e.g. --storage.aws_region"
              + " eu-west-1",
          "  --sink.<key> <value>              a sink option, e.g. --sink.on-invalid-record SKIP"
              + " (also for messages that are not Debezium change events)",
          "  --compaction.<key> <value>        in-job compaction of every table, e.g."
              + " --compaction.enabled true",
          "Durations use Flink's syntax: 30 s, 10min, 1h.");

  static final String DEFAULT_GROUP_ID = "lance-cdc-sync";
  static final Duration DEFAULT_CHECKPOINT_INTERVAL = Duration.ofSeconds(30);

  /** Where the source starts when the job starts without state. */
  enum StartingOffsets {
    EARLIEST,
    LATEST,
    GROUP
  }

  private static final String KAFKA_PREFIX = "kafka.";
  private static final String SINK_PREFIX = "sink.";
  private static final String COMPACTION_PREFIX = "compaction.";
  private static final Set<String> KEYS =
      Set.of(
          "bootstrap-servers",
          "topics",
          "topic-pattern",
          "group-id",
          "starting-offsets",
          "warehouse",
          "database",
          "include-tables",
          "exclude-tables",
          "table-prefix",
          "table-suffix",
          "checkpoint-interval",
          "parallelism");

  final String bootstrapServers;
  final List<String> topics;
  final Pattern topicPattern;
  final String groupId;
  final StartingOffsets startingOffsets;
  final Map<String, String> kafkaProperties;
  final String warehouse;
  final TableRouting routing;
  final Map<String, String> storageOptions;

  /** The options of the sink: {@code sink.*} and {@code compaction.*}. */
  final Map<String, String> sinkOptions;

  final Duration checkpointInterval;
  final Optional<Integer> parallelism;

  private CdcSyncArgs(CommandLineArgs line) {
    bootstrapServers = required(line, "bootstrap-servers");
    Optional<String> topicList = line.get("topics");
    Optional<String> pattern = line.get("topic-pattern");
    if (topicList.isPresent() == pattern.isPresent()) {
      throw new IllegalArgumentException("give either --topics or --topic-pattern");
    }
    topics =
        topicList
            .map(list -> Arrays.stream(list.split(",")).map(String::trim).filter(t -> !t.isEmpty()))
            .map(stream -> stream.toList())
            .orElse(List.of());
    if (topicList.isPresent() && topics.isEmpty()) {
      throw new IllegalArgumentException("--topics names no topic");
    }
    topicPattern = pattern.map(CdcSyncArgs::topicPattern).orElse(null);
    groupId = line.get("group-id").orElse(DEFAULT_GROUP_ID);
    startingOffsets =
        line.get("starting-offsets")
            .map(CdcSyncArgs::startingOffsets)
            .orElse(StartingOffsets.EARLIEST);
    kafkaProperties = withoutPrefix(line.withPrefix(KAFKA_PREFIX), KAFKA_PREFIX);
    warehouse = required(line, "warehouse");
    routing =
        new TableRouting(
            required(line, "database"),
            line.get("include-tables").orElse(null),
            line.get("exclude-tables").orElse(null),
            line.get("table-prefix").orElse(""),
            line.get("table-suffix").orElse(""));
    storageOptions =
        withoutPrefix(
            line.withPrefix(LanceDatasetOptions.STORAGE_PREFIX),
            LanceDatasetOptions.STORAGE_PREFIX);
    sinkOptions = new TreeMap<>(line.withPrefix(SINK_PREFIX));
    sinkOptions.putAll(line.withPrefix(COMPACTION_PREFIX));
    checkpointInterval =
        line.get("checkpoint-interval")
            .map(value -> positive(value))
            .orElse(DEFAULT_CHECKPOINT_INTERVAL);
    parallelism = line.get("parallelism").map(CdcSyncArgs::parallelism);
  }

  /**
   * @throws IllegalArgumentException naming the bad argument, with the usage text
   */
  static CdcSyncArgs parse(String[] args) {
    try {
      CdcSyncArgs parsed =
          new CdcSyncArgs(
              CommandLineArgs.parse(
                  args,
                  Set.of(),
                  key ->
                      KEYS.contains(key)
                          || hasPrefix(key, KAFKA_PREFIX)
                          || hasPrefix(key, LanceDatasetOptions.STORAGE_PREFIX)
                          || hasPrefix(key, SINK_PREFIX)
                          || hasPrefix(key, COMPACTION_PREFIX)));
      // the sink checks its options now, so that a bad one is reported before anything starts
      parsed.onInvalidRecord();
      parsed.sink();
      return parsed;
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(e.getMessage() + "\n" + USAGE, e);
    }
  }

  /**
   * What the job does with a message it cannot apply: the sink's {@code sink.on-invalid-record}.
   */
  InvalidRecordPolicy onInvalidRecord() {
    return Configuration.fromMap(sinkOptions).get(LanceSinkOptions.SINK_ON_INVALID_RECORD);
  }

  /**
   * @throws IllegalArgumentException naming the first invalid sink option
   */
  DynamicLanceSink sink() {
    DynamicLanceSinkBuilder builder = DynamicLanceSink.builder().warehouse(warehouse);
    storageOptions.forEach(builder::storageOption);
    sinkOptions.forEach(builder::option);
    return builder.build();
  }

  private static boolean hasPrefix(String key, String prefix) {
    return key.startsWith(prefix) && key.length() > prefix.length();
  }

  private static Map<String, String> withoutPrefix(Map<String, String> values, String prefix) {
    Map<String, String> stripped = new TreeMap<>();
    values.forEach((key, value) -> stripped.put(key.substring(prefix.length()), value));
    return stripped;
  }

  private static String required(CommandLineArgs line, String key) {
    return line.get(key)
        .filter(value -> !value.isBlank())
        .orElseThrow(() -> new IllegalArgumentException("--" + key + " is required"));
  }

  private static Pattern topicPattern(String regex) {
    try {
      return Pattern.compile(regex);
    } catch (PatternSyntaxException e) {
      throw new IllegalArgumentException(
          String.format(
              "--topic-pattern '%s' is not a regular expression: %s", regex, e.getDescription()));
    }
  }

  private static StartingOffsets startingOffsets(String value) {
    try {
      return StartingOffsets.valueOf(value.trim().toUpperCase(java.util.Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          String.format(
              "invalid value '%s' for --starting-offsets (earliest, latest or group)", value));
    }
  }

  private static Duration positive(String value) {
    Duration duration;
    try {
      duration = TimeUtils.parseDuration(value);
    } catch (IllegalArgumentException e) {
      duration = Duration.ZERO;
    }
    if (duration.isZero() || duration.isNegative()) {
      throw new IllegalArgumentException(
          String.format("invalid value '%s' for --checkpoint-interval", value));
    }
    return duration;
  }

  private static int parallelism(String value) {
    try {
      int parsed = Integer.parseInt(value.trim());
      if (parsed > 0) {
        return parsed;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(
        String.format("invalid value '%s' for --parallelism (a positive number)", value));
  }
}
