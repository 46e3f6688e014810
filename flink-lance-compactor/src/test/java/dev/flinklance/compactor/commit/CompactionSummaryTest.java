package dev.flinklance.compactor.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.compactor.commit.CompactionSummary.Outcome;
import java.io.IOException;
import java.io.InputStream;
import java.util.Objects;
import org.junit.jupiter.api.Test;

/**
 * Summaries through their versioned serializer: every figure survives, a failure longer than {@code
 * writeUTF}'s 64 KiB too, and the bytes format 1 wrote (kept in test resources, written by the
 * first release of the format) still read to the same summary.
 */
class CompactionSummaryTest {
  private static final CompactionSummary.Serializer SERIALIZER = new CompactionSummary.Serializer();

  private static CompactionSummary released() {
    return CompactionSummary.builder("plan-7", Outcome.COMMITTED, 12)
        .committed(42, 3)
        .rewrote(10, 1, 1_000_000, 50L << 20)
        .lineageBytesSpilled(4096)
        .groupsPreempted(1)
        .durationMs(1234)
        .failure("a rewrite of fragment 3 failed: ünïcode")
        .build();
  }

  @Test
  void everyFigureSurvivesTheSerializer() throws IOException {
    CompactionSummary summary = released();
    CompactionSummary copy =
        SERIALIZER.deserialize(SERIALIZER.getVersion(), SERIALIZER.serialize(summary));

    assertThat(copy).isEqualTo(summary).hasToString(summary.toString());
    assertThat(copy.bytesRewritten()).isEqualTo(50L << 20);
    assertThat(copy.failure()).endsWith("ünïcode");
  }

  @Test
  void aFailureLongerThan64KiBSurvives() throws IOException {
    CompactionSummary failed =
        CompactionSummary.builder("p", Outcome.FAILED, 4).failure("x".repeat(100_000)).build();

    CompactionSummary copy = SERIALIZER.deserialize(1, SERIALIZER.serialize(failed));

    assertThat(copy.failure()).hasSize(100_000);
    assertThat(copy.version()).isEqualTo(-1);
    assertThat(copy.fragmentsAfter()).isEqualTo(4);
  }

  @Test
  void theBytesOfFormat1StillRead() throws IOException {
    byte[] stored;
    try (InputStream in =
        Objects.requireNonNull(
            getClass().getResourceAsStream("/serializer-snapshots/compaction-summary-v1.bin"))) {
      stored = in.readAllBytes();
    }

    assertThat(SERIALIZER.deserialize(1, stored)).isEqualTo(released());
    assertThat(SERIALIZER.serialize(released())).as("format 1 unchanged").isEqualTo(stored);
  }

  @Test
  void anUnknownFormatIsRefusedSayingWhatToDo() {
    assertThatThrownBy(() -> SERIALIZER.deserialize(2, new byte[0]))
        .hasMessageContaining("compaction summaries")
        .hasMessageContaining("format 2")
        .hasMessageContaining("stop-with-savepoint");
  }
}
