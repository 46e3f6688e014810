package dev.flinklance.concurrent;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class NativeWorkersTest {

  /** Stands for a native call: it ignores interrupts and runs to its end. */
  private static void uninterruptibleWork(
      CountDownLatch started, long millis, AtomicBoolean ended) {
    started.countDown();
    long end = System.nanoTime() + Duration.ofMillis(millis).toNanos();
    while (System.nanoTime() < end) {
      Thread.onSpinWait();
    }
    ended.set(true);
  }

  @Test
  void waitsForACallInFlightEvenWhenTheClosingThreadIsInterrupted() throws Exception {
    ExecutorService workers = NativeWorkers.singleThread("native-test");
    CountDownLatch started = new CountDownLatch(1);
    AtomicBoolean ended = new AtomicBoolean();
    workers.execute(() -> uninterruptibleWork(started, 300, ended));
    started.await();

    Thread.currentThread().interrupt(); // as Flink does to a task it cancels
    boolean stopped = NativeWorkers.stop(workers, Duration.ofSeconds(30));

    assertThat(Thread.interrupted()).as("interrupt status restored").isTrue();
    assertThat(stopped).isTrue();
    assertThat(ended).as("the call ran to its end before stop returned").isTrue();
  }

  @Test
  void reportsACallThatOutlivesTheWait() throws Exception {
    ExecutorService workers = NativeWorkers.singleThread("native-test");
    CountDownLatch started = new CountDownLatch(1);
    AtomicBoolean ended = new AtomicBoolean();
    workers.execute(() -> uninterruptibleWork(started, 2_000, ended));
    started.await();

    assertThat(NativeWorkers.stop(workers, Duration.ofMillis(50))).isFalse();
    assertThat(ended).isFalse();
  }
}
