package dev.flinklance.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.cdc.testing.DocCommand;
import dev.flinklance.sink.InvalidRecordPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** LanceCdcSyncJob's command line, docs/cdc.md's command among them. */
class CdcSyncArgsTest {
  private static final List<String> REQUIRED =
      List.of(
          "--bootstrap-servers", "127.0.0.1:9092",
          "--topics", "a, b",
          "--warehouse", "/tmp/lake",
          "--database", "inventory");

  @Test
  void theDocumentedCommandParses() throws Exception {
    CdcSyncArgs args = CdcSyncArgs.parse(DocCommand.cdcSyncArguments().toArray(String[]::new));
    assertThat(args.bootstrapServers).isEqualTo("kafka:9092");
    assertThat(args.topics).isEmpty();
    assertThat(args.topicPattern.pattern()).isEqualTo("dbserver1\\.inventory\\..*");
    assertThat(args.topicPattern.matcher("dbserver1.inventory.customers").matches()).isTrue();
    assertThat(args.groupId).isEqualTo("inventory-to-lance");
    assertThat(args.startingOffsets).isEqualTo(CdcSyncArgs.StartingOffsets.EARLIEST);
    assertThat(args.warehouse).isEqualTo("s3://lake/warehouse");
    assertThat(args.storageOptions).isEqualTo(Map.of("aws_region", "eu-west-1"));
    assertThat(args.routing.database()).isEqualTo("inventory");
    assertThat(args.routing.target("customers")).contains("customers");
    assertThat(args.routing.target("audit_log")).isEmpty();
    assertThat(args.checkpointInterval).isEqualTo(Duration.ofMinutes(1));
    assertThat(args.sinkOptions)
        .isEqualTo(Map.of("sink.upsert.max-buffer-size", "64mb", "compaction.enabled", "true"));
    assertThat(args.onInvalidRecord()).isEqualTo(InvalidRecordPolicy.FAIL);
  }

  @Test
  void everyArgument() {
    CdcSyncArgs args =
        parse(
            "--group-id", "g",
            "--starting-offsets", "group",
            "--kafka.security.protocol", "SSL",
            "--include-tables", "c.*",
            "--exclude-tables", "cx",
            "--table-prefix", "src_",
            "--table-suffix", "_v",
            "--parallelism", "3",
            "--sink.on-invalid-record", "SKIP",
            "--sink.dynamic.max-open-tables", "10",
            "--compaction.trigger.commits", "20");
    assertThat(args.topics).containsExactly("a", "b");
    assertThat(args.topicPattern).isNull();
    assertThat(args.groupId).isEqualTo("g");
    assertThat(args.startingOffsets).isEqualTo(CdcSyncArgs.StartingOffsets.GROUP);
    assertThat(args.kafkaProperties).isEqualTo(Map.of("security.protocol", "SSL"));
    assertThat(args.routing.target("customers")).contains("src_customers_v");
    assertThat(args.routing.target("cx")).isEmpty();
    assertThat(args.routing.target("orders")).isEmpty();
    assertThat(args.parallelism).contains(3);
    assertThat(args.checkpointInterval).isEqualTo(CdcSyncArgs.DEFAULT_CHECKPOINT_INTERVAL);
    assertThat(args.onInvalidRecord()).isEqualTo(InvalidRecordPolicy.SKIP);
    assertThat(args.sinkOptions)
        .isEqualTo(
            Map.of(
                "sink.on-invalid-record", "SKIP",
                "sink.dynamic.max-open-tables", "10",
                "compaction.trigger.commits", "20"));
  }

  @Test
  void badArgumentsAreNamedWithTheUsage() {
    assertThatThrownBy(() -> CdcSyncArgs.parse(new String[] {"--topics", "a"}))
        .hasMessageStartingWith("--bootstrap-servers is required")
        .hasMessageContaining("Usage: LanceCdcSyncJob");
    assertThatThrownBy(() -> parse("--topic-pattern", "x.*"))
        .hasMessageStartingWith("give either --topics or --topic-pattern");
    assertThatThrownBy(() -> parse("--starting-offsets", "yesterday"))
        .hasMessageStartingWith(
            "invalid value 'yesterday' for --starting-offsets (earliest, latest or group)");
    assertThatThrownBy(() -> parse("--include-tables", "(a"))
        .hasMessageStartingWith("--include-tables '(a' is not a regular expression");
    assertThatThrownBy(() -> parse("--checkpoint-interval", "0s"))
        .hasMessageStartingWith("invalid value '0s' for --checkpoint-interval");
    assertThatThrownBy(() -> parse("--parallelism", "-1"))
        .hasMessageStartingWith("invalid value '-1' for --parallelism");
    assertThatThrownBy(() -> parse("--tables", "x"))
        .hasMessageStartingWith("unknown argument '--tables'");
    assertThatThrownBy(() -> parse("--sink.on-invalid-record", "IGNORE"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("IGNORE");
    assertThatThrownBy(() -> parse("--compaction.trigger.small-fragments", "1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'compaction.trigger.small-fragments'");
  }

  private static CdcSyncArgs parse(String... more) {
    List<String> args = new ArrayList<>(REQUIRED);
    args.addAll(List.of(more));
    return CdcSyncArgs.parse(args.toArray(String[]::new));
  }
}
