package dev.flinklance.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.access.VersionMark;
import dev.flinklance.source.enumerator.LanceEnumeratorState;
import dev.flinklance.source.enumerator.LanceEnumeratorStateSerializer;
import dev.flinklance.source.split.LanceSplit;
import dev.flinklance.source.split.LanceSplitSerializer;
import dev.flinklance.source.split.SplitKind;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The streaming keys' checks, and the binary forms of splits and enumerator states. */
class LanceSourceConfigTest {

  private static LanceSourceConfig config(String... keyValues) {
    Map<String, String> options = new HashMap<>(Map.of("path", "/tmp/t.lance"));
    for (int i = 0; i < keyValues.length; i += 2) {
      options.put(keyValues[i], keyValues[i + 1]);
    }
    return LanceSourceConfig.from(Configuration.fromMap(options));
  }

  @Test
  void aStreamingReadWithItsDefaults() {
    StreamingRead read = config("scan.streaming", "true").streaming();
    assertThat(read.startupMode()).isEqualTo(StartupMode.FULL);
    assertThat(read.discoveryInterval()).isEqualTo(Duration.ofSeconds(10));
    assertThat(read.changelog()).isFalse();
    assertThat(read.onOverwrite()).isEqualTo(OnOverwrite.FAIL);
    assertThat(read.onDelete()).isEqualTo(OnDelete.FAIL);
    assertThat(read.onSchemaChange()).isEqualTo(OnSchemaChange.FAIL);
    assertThat(
            config("scan.streaming", "true", "scan.on-schema-change", "continue")
                .streaming()
                .onSchemaChange())
        .isEqualTo(OnSchemaChange.CONTINUE);
    assertThat(config().streaming()).isNull();
    assertThat(read.consumerId()).isNull();
    assertThat(read.consumerExpiration()).isEqualTo(Duration.ofDays(1));
    assertThat(
            config("scan.streaming", "true", "scan.consumer-id", "copy.1").streaming().consumerId())
        .isEqualTo("copy.1");
  }

  @Test
  void valuesAreReadInAnyCase() {
    StreamingRead read =
        config(
                "scan.streaming", "true",
                "scan.startup.mode", "Timestamp",
                "scan.startup.timestamp-millis", "1000",
                "scan.changelog", "true",
                "scan.on-overwrite", "CHANGELOG")
            .streaming();
    assertThat(read.startupMode()).isEqualTo(StartupMode.TIMESTAMP);
    assertThat(read.startupTimestampMillis()).isEqualTo(1000);
    assertThat(read.onOverwrite()).isEqualTo(OnOverwrite.CHANGELOG);
  }

  /**
   * A bounded read checks the streaming keys (a table's options tune hinted reads), then ignores
   * them.
   */
  @Test
  void aBoundedReadIgnoresValidStreamingKeys() {
    assertThat(config("scan.changelog", "true", "scan.discovery-interval", "1 s").streaming())
        .isNull();
    assertThat(config("scan.changelog", "true").changelog()).isFalse();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "scan.startup.mode=version|'scan.startup.version': must be set with 'scan.startup.mode'"
            + " = 'version'",
        "scan.startup.version=3|'scan.startup.version': applies only with 'scan.startup.mode' ="
            + " 'version'",
        "scan.startup.mode=timestamp|'scan.startup.timestamp-millis': must be set",
        "scan.startup.mode=version,scan.startup.version=-1|'scan.startup.version': must not be"
            + " negative",
        "scan.discovery-interval=0 ms|'scan.discovery-interval': must be at least 1 ms",
        "scan.on-overwrite=changelog|'scan.on-overwrite': 'changelog' needs 'scan.changelog' ="
            + " 'true'",
        "scan.changelog=true,scan.on-delete=skip|'scan.on-delete': applies to append-only reads",
        "scan.version=2|'scan.version': reads one version",
        "scan.tag=t|'scan.tag': reads one version",
        "scan.startup.mode=never|scan.startup.mode",
        "scan.consumer-id=a/b|'scan.consumer-id': must be 1 to 128 letters, digits",
        "scan.consumer-id=c,path=gs://b/t.lance|'scan.consumer-id': registrations are kept beside"
            + " tables on local disk and s3:// only, not at gs://b/t.lance",
        "scan.consumer.expiration-time=0 ms|'scan.consumer.expiration-time': must be at least 1"
            + " ms",
      })
  void badStreamingOptionsFailNamingTheOption(String options, String message) {
    Map<String, String> keyValues = new HashMap<>(Map.of("path", "/tmp/t.lance"));
    keyValues.put("scan.streaming", "true");
    for (String option : options.split(",")) {
      String[] keyValue = option.split("=", 2);
      keyValues.put(keyValue[0], keyValue[1]);
    }
    assertThatThrownBy(() -> LanceSourceConfig.from(Configuration.fromMap(keyValues)))
        .hasMessageContaining(message);
  }

  @Test
  void aChangelogParallelismNeedsAPrimaryKey() {
    LanceSourceConfig changelog =
        config("scan.streaming", "true", "scan.changelog", "true", "scan.parallelism", "2");
    assertThatThrownBy(() -> changelog.withChangelogKey(List.of()))
        .hasMessageContaining(
            "'scan.parallelism': with 'scan.changelog' = 'true' it needs the"
                + " table's PRIMARY KEY");
    assertThat(changelog.withChangelogKey(List.of("id")).streaming().changelogKey())
        .containsExactly("id");
  }

  @Test
  void splitsAndStatesRoundTrip() throws Exception {
    LanceSplit split = new LanceSplit(SplitKind.DELETED_ROWS, 7, 42, 1_700_000_000_000L, 31);
    LanceSplitSerializer splits = LanceSplitSerializer.INSTANCE;
    assertThat(splits.deserialize(splits.getVersion(), splits.serialize(split))).isEqualTo(split);
    assertThat(split.readVersion()).isEqualTo(41);

    LanceEnumeratorStateSerializer states = new LanceEnumeratorStateSerializer();
    for (LanceEnumeratorState state :
        List.of(
            new LanceEnumeratorState(List.of(split), new VersionMark(41, 123_456_789L)),
            new LanceEnumeratorState(List.of(), null))) {
      assertThat(states.deserialize(states.getVersion(), states.serialize(state))).isEqualTo(state);
    }
  }

  @Test
  void splitsAreReadInVersionOrderRemovalsFirst() {
    LanceSplit added = LanceSplit.of(SplitKind.ADDED, 0, 5, 0);
    LanceSplit removed = LanceSplit.of(SplitKind.REMOVED, 3, 5, 0);
    LanceSplit deleted = LanceSplit.of(SplitKind.DELETED_ROWS, 1, 5, 0);
    LanceSplit earlier = LanceSplit.of(SplitKind.ADDED, 9, 4, 0);
    assertThat(List.of(added, removed, deleted, earlier).stream().sorted(LanceSplit.READ_ORDER))
        .containsExactly(earlier, deleted, removed, added);
    assertThat(earlier.readsBefore(removed)).isTrue();
    assertThat(removed.readsBefore(added)).isTrue();
    assertThat(removed.readsBefore(deleted)).isFalse();
  }
}
