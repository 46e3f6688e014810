package dev.flinklance.concurrent;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class NativeWorkersTest {

  /**
   * Stands for a native call: it ignores interrupts and runs until {@code release}, so that no
   * assertion depends on how fast a loaded machine runs it.
   */
  private static void uninterruptibleWork(
      CountDownLatch started, CountDownLatch release, AtomicBoolean ended) {
    started.countDown();
    while (true) {
      try {
        release.await();
        break;
      } catch (InterruptedException e) {
        // a native call does not see interrupts
      }
    }
    ended.set(true);
  }

  @Test
  void waitsForACallInFlightEvenWhenTheClosingThreadIsInterrupted() throws Exception {
    ExecutorService workers = NativeWorkers.singleThread("native-test");
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicBoolean ended = new AtomicBoolean();
    workers.execute(() -> uninterruptibleWork(started, release, ended));
    started.await();
    CompletableFuture.delayedExecutor(300, TimeUnit.MILLISECONDS).execute(release::countDown);

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
    CountDownLatch release = new CountDownLatch(1);
    AtomicBoolean ended = new AtomicBoolean();
    workers.execute(() -> uninterruptibleWork(started, release, ended));
    started.await();

    assertThat(NativeWorkers.stop(workers, Duration.ofMillis(50))).isFalse();
    assertThat(ended).isFalse();
    release.countDown();
    assertThat(NativeWorkers.stop(workers, Duration.ofSeconds(30))).isTrue();
  }
}
