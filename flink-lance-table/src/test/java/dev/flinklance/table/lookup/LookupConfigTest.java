package dev.flinklance.table.lookup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.config.OptionFields;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.table.connector.source.lookup.LookupOptions;
import org.apache.flink.table.connector.source.lookup.LookupOptions.LookupCacheType;
import org.apache.flink.table.connector.source.lookup.cache.trigger.PeriodicCacheReloadTrigger;
import org.apache.flink.table.connector.source.lookup.cache.trigger.TimedCacheReloadTrigger;
import org.junit.jupiter.api.Test;

/** {@code lookup.*}: Flink's lookup options exactly, the connector's two, and their checks. */
class LookupConfigTest {

  @Test
  void theCacheOptionsAreFlinksWithTheirKeysTypesAndDefaults() {
    Map<String, ConfigOption<?>> ours =
        OptionFields.of(LanceLookupOptions.class).stream()
            .collect(Collectors.toMap(ConfigOption::key, o -> o));
    List<ConfigOption<?>> flinks = List.copyOf(OptionFields.of(LookupOptions.class));
    assertThat(flinks).hasSize(11);
    for (ConfigOption<?> flink : flinks) {
      ConfigOption<?> option = ours.get(flink.key());
      assertThat(option).as(flink.key()).isNotNull();
      assertThat(option.hasDefaultValue()).as(flink.key()).isEqualTo(flink.hasDefaultValue());
      assertThat(option.defaultValue()).as(flink.key()).isEqualTo(flink.defaultValue());
      assertThat(option).as(flink.key()).isEqualTo(flink); // key, type, default
    }
    assertThat(ours.keySet())
        .containsAll(flinks.stream().map(ConfigOption::key).toList())
        .contains("lookup.async", "lookup.refresh-interval")
        .hasSize(13);
  }

  @Test
  void noOptionIsNoCacheSyncFollowingEveryMinute() {
    LookupConfig config = LookupConfig.from(Map.of());
    assertThat(config.cache()).isEqualTo(LookupCacheType.NONE);
    assertThat(config.async()).isFalse();
    assertThat(config.maxRetries()).isEqualTo(3);
    assertThat(config.refreshInterval()).isEqualTo(Duration.ofMinutes(1));
    assertThat(config.partialCache()).isNull();
    assertThat(config.fullCacheSchedule()).isNull();
  }

  @Test
  void thePartialCacheIsFlinksAndNeedsALimit() {
    assertThat(
            LookupConfig.from(
                    Map.of(
                        "lookup.cache", "PARTIAL",
                        "lookup.partial-cache.max-rows", "100"))
                .partialCache())
        .isNotNull();
    assertThatThrownBy(() -> LookupConfig.from(Map.of("lookup.cache", "partial")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lookup.partial-cache.expire-after-access")
        .hasMessageContaining("lookup.partial-cache.max-rows");
  }

  @Test
  void theFullCacheLooksEveryRefreshIntervalUnlessFlinksScheduleIsGiven() {
    assertThat(LookupConfig.from(Map.of("lookup.cache", "FULL")).fullCacheSchedule())
        .isInstanceOf(PeriodicCacheReloadTrigger.class);
    assertThat(
            LookupConfig.from(Map.of("lookup.cache", "FULL", "lookup.refresh-interval", "0 s"))
                .fullCacheSchedule())
        .as("loaded once")
        .isNull();
    assertThat(
            LookupConfig.from(
                    Map.of(
                        "lookup.cache", "FULL",
                        "lookup.full-cache.reload-strategy", "TIMED",
                        "lookup.full-cache.timed-reload.iso-time", "10:15Z"))
                .fullCacheSchedule())
        .isInstanceOf(TimedCacheReloadTrigger.class);
  }

  @Test
  void invalidValuesAndContradictionsNameTheOption() {
    assertThatThrownBy(() -> LookupConfig.from(Map.of("lookup.max-retries", "-1")))
        .hasMessage("Invalid lookup option 'lookup.max-retries': must not be negative, got -1");
    assertThatThrownBy(() -> LookupConfig.from(Map.of("lookup.refresh-interval", "soon")))
        .hasMessageContaining(
            "Invalid lookup option 'lookup.refresh-interval': cannot parse 'soon'");
    assertThatThrownBy(() -> LookupConfig.from(Map.of("lookup.cache", "ALL")))
        .hasMessageContaining("Invalid lookup option 'lookup.cache': cannot parse 'ALL'");
    assertThatThrownBy(
            () -> LookupConfig.from(Map.of("lookup.cache", "FULL", "lookup.async", "true")))
        .hasMessageContaining("'lookup.async': cannot be combined with 'lookup.cache' = 'FULL'");
    assertThatThrownBy(() -> LookupConfig.from(Map.of("lookup.partial-cache.max-rows", "10")))
        .hasMessage(
            "Invalid lookup option 'lookup.partial-cache.max-rows': it applies to 'lookup.cache'"
                + " = 'PARTIAL', but 'lookup.cache' is NONE");
    assertThatThrownBy(
            () ->
                LookupConfig.from(
                    Map.of(
                        "lookup.cache", "PARTIAL",
                        "lookup.partial-cache.max-rows", "10",
                        "lookup.full-cache.periodic-reload.interval", "1 min")))
        .hasMessageContaining("'lookup.full-cache.periodic-reload.interval': it applies to");
    assertThatThrownBy(
            () ->
                LookupConfig.from(
                    Map.of(
                        "lookup.cache", "FULL",
                        "lookup.full-cache.reload-strategy", "TIMED",
                        "lookup.full-cache.timed-reload.iso-time", "noon")))
        .hasMessageContaining("Invalid lookup options")
        .hasMessageContaining("noon");
  }
}
