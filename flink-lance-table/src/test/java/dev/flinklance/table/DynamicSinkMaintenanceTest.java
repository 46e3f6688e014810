package dev.flinklance.table;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.sink.dynamic.DynamicLanceSink;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With the compactor on the class path (as in the connector jar), the dynamic sink takes in-job
 * compaction, and checks its options when it is built, not at a table's first commit.
 */
class DynamicSinkMaintenanceTest {
  @TempDir Path dir;

  @Test
  void inJobCompactionIsTaken() {
    assertThatCode(
            () ->
                DynamicLanceSink.builder()
                    .warehouse(dir.toString())
                    .option("compaction.enabled", "true")
                    .build())
        .doesNotThrowAnyException();
  }

  @Test
  void aBadCompactionOptionFailsWhenTheSinkIsBuilt() {
    assertThatThrownBy(
            () ->
                DynamicLanceSink.builder()
                    .warehouse(dir.toString())
                    .option("compaction.enabled", "true")
                    .option("compaction.trigger.small-fragments", "0")
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'compaction.trigger.small-fragments'");
  }
}
