package dev.flinklance.compactor.commit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.compactor.commit.CompactionSummary.Outcome;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * A summary's failure longer than {@code writeUTF}'s 64 KiB survives its serializer (the stored
 * bytes of every format: {@code CompactorSerializerSnapshotsTest}).
 */
class CompactionSummaryTest {
  private static final CompactionSummary.Serializer SERIALIZER = new CompactionSummary.Serializer();

  @Test
  void aFailureLongerThan64KiBSurvives() throws IOException {
    CompactionSummary failed =
        CompactionSummary.builder("p", Outcome.FAILED, 4).failure("x".repeat(100_000)).build();

    CompactionSummary copy = SERIALIZER.deserialize(1, SERIALIZER.serialize(failed));

    assertThat(copy).isEqualTo(failed).hasToString(failed.toString());
    assertThat(copy.failure()).hasSize(100_000);
    assertThat(copy.version()).isEqualTo(-1);
    assertThat(copy.fragmentsAfter()).isEqualTo(4);
  }
}
