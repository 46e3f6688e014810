package dev.flinklance.errors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.errors.LanceErrors.Kind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class LanceRetriesTest {
  private static final String URI = "/tmp/t.lance";

  private final AtomicInteger attempts = new AtomicInteger();
  private final List<Duration> delays = new ArrayList<>();

  private <T> T call(int retries, EnumSet<Kind> retried, RuntimeException failure, int failures)
      throws InterruptedException {
    return LanceRetries.call(
        LanceRetries.backoff(retries, Duration.ofMillis(1), Duration.ofMillis(4)),
        retried,
        () -> {
          if (attempts.incrementAndGet() <= failures) {
            throw failure;
          }
          return null;
        },
        (e, retry, delay) -> delays.add(delay));
  }

  @Test
  void retriesTheKindsAskedForWithTheStrategysDelays() throws InterruptedException {
    call(5, EnumSet.of(Kind.TRANSIENT), new LanceDatasetException(URI, "503", null), 4);

    assertThat(attempts).hasValue(5);
    assertThat(delays).extracting(Duration::toMillis).containsExactly(1L, 2L, 4L, 4L);
  }

  @Test
  void theLastFailureEndsTheRetries() {
    LanceDatasetException unavailable = new LanceDatasetException(URI, "503", null);
    assertThatThrownBy(() -> call(2, EnumSet.of(Kind.TRANSIENT), unavailable, 10))
        .isSameAs(unavailable);
    assertThat(attempts).hasValue(3);
  }

  @Test
  void aPermanentFailureIsNeverRetried() {
    LanceDatasetException denied =
        LanceDatasetException.wrap(URI, "cannot open", new RuntimeException("AccessDenied"));
    assertThat(denied).isInstanceOf(PermanentDatasetException.class);
    assertThatThrownBy(() -> call(5, EnumSet.allOf(Kind.class), denied, 1)).isSameAs(denied);
    assertThat(attempts).hasValue(1);
  }

  @Test
  void otherKindsAreNotRetried() {
    LanceDatasetException conflict =
        LanceDatasetException.wrap(
            URI, "cannot commit", new RuntimeException("Retryable commit conflict for version 3"));
    assertThatThrownBy(() -> call(5, EnumSet.of(Kind.TRANSIENT), conflict, 1)).isSameAs(conflict);
    assertThat(attempts).hasValue(1);
  }

  @Test
  void pollLooksUntilTheAnswerIsThereOrTheRetriesRunOut() throws InterruptedException {
    assertThat(
            LanceRetries.<Integer>poll(
                LanceRetries.atOnce(10), attempts::incrementAndGet, answer -> answer == 3))
        .isEqualTo(3);
    attempts.set(0);
    assertThat(
            LanceRetries.<Integer>poll(
                LanceRetries.atOnce(4), attempts::incrementAndGet, a -> false))
        .isEqualTo(5);
  }
}
