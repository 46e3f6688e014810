package dev.flinklance.table;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.sink.dynamic.DynamicLanceSink;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With the compactor on the class path (as in the connector jar), the dynamic sink refuses in-job
 * compaction when it is built, naming the option and what to use instead, rather than writing
 * tables that are never compacted.
 */
class DynamicSinkMaintenanceTest {
  @TempDir Path dir;

  @Test
  void inJobCompactionIsRefusedWhenTheSinkIsBuilt() {
    assertThatThrownBy(
            () ->
                DynamicLanceSink.builder()
                    .warehouse(dir.toString())
                    .option("compaction.enabled", "true")
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'compaction.enabled'")
        .hasMessageContaining("LanceCompactionJob");
  }
}
