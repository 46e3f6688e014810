package dev.flinklance.compactor;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.access.TableRef;
import dev.flinklance.compactor.commit.CompactionSummary;
import dev.flinklance.compactor.commit.CompactionSummary.Outcome;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A pass run on its own fails with the cause when a compaction failed or none was planned. */
class PassOutcomeTest {
  private static final TableRef TABLE = new TableRef("s3://bucket/events", Map.of());

  private static CompactionSummary summary(Outcome outcome, String failure) {
    return CompactionSummary.builder("p", outcome, 4).durationMs(1).failure(failure).build();
  }

  @Test
  void aFailedCompactionFailsThePassWithItsCause() {
    assertThatThrownBy(
            () ->
                LanceCompactionJob.requireSucceeded(
                    TABLE,
                    List.of(
                        summary(Outcome.COMMITTED, null),
                        summary(Outcome.FAILED, "cannot reach its row-lineage side files"))))
        .isInstanceOf(CompactionFailedException.class)
        .hasMessage(
            "Compaction of Lance table 's3://bucket/events' failed, nothing was committed:"
                + " cannot reach its row-lineage side files");
  }

  @Test
  void aPassWithoutSummariesFailed() {
    assertThatThrownBy(() -> LanceCompactionJob.requireSucceeded(TABLE, List.of()))
        .isInstanceOf(CompactionFailedException.class)
        .hasMessageContaining("the planner could not look at the table");
  }

  @Test
  void anythingElseSucceeded() {
    assertThatCode(
            () ->
                LanceCompactionJob.requireSucceeded(
                    TABLE,
                    List.of(
                        summary(Outcome.NOTHING_TO_COMPACT, null),
                        summary(Outcome.NOTHING_COMMITTED, null))))
        .doesNotThrowAnyException();
  }
}
