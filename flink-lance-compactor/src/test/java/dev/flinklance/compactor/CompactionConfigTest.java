package dev.flinklance.compactor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.sink.LanceSink;
import dev.flinklance.testing.TestRows;
import java.time.Duration;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Compaction options are validated once, naming the option, wherever they come from. */
class CompactionConfigTest {

  @ParameterizedTest
  @CsvSource({
    "compaction.target-rows-per-fragment, 0",
    "compaction.trigger.small-fragments, 1",
    "compaction.trigger.commits, 0",
    "compaction.trigger.interval, 0 s",
    "compaction.parallelism, 0",
    "compaction.timeout, 0 ms",
    "compaction.side-file-min-age, 0 s",
  })
  void invalidValuesNameTheirOption(String key, String value) {
    Configuration conf = Configuration.fromMap(Map.of("path", "/tmp/t", key, value));

    assertThatThrownBy(() -> CompactionConfig.from(conf))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(key);
  }

  @Test
  void theSinkBuilderRejectsABadCompactionOption() {
    assertThatThrownBy(
            () ->
                LanceSink.forRowData(TestRows.ROW_TYPE)
                    .path("/tmp/t")
                    .options(
                        Map.of("compaction.enabled", "true", "compaction.trigger.commits", "-1"))
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("compaction.trigger.commits");
  }

  @Test
  void defaults() {
    CompactionConfig config = CompactionConfig.from(Configuration.fromMap(Map.of("path", "t")));

    assertThat(config.dataset().uri()).startsWith("/").endsWith("/t");
    assertThat(config.targetRowsPerFragment()).isEqualTo(1_048_576);
    assertThat(config.triggerInterval()).isEqualTo(Duration.ofHours(1));
    assertThat(config.cleanupOlderThan()).isEmpty();
    assertThat(config.parallelism()).isEmpty();
  }

  @Test
  void compactionIsOffUnlessEnabled() {
    CompactionMaintenance topology = new CompactionMaintenance();

    assertThat(topology.isEnabled(new Configuration())).isFalse();
    assertThat(topology.isEnabled(Configuration.fromMap(Map.of("compaction.enabled", "true"))))
        .isTrue();
  }
}
