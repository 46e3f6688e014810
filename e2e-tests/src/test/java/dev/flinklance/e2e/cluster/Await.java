package dev.flinklance.e2e.cluster;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Polls a condition until it holds, with a deadline; a timeout names what was awaited. */
public final class Await {
  private static final Duration POLL = Duration.ofMillis(250);

  private Await() {}

  /**
   * @param state what to report on timeout (the last observed state)
   * @throws IllegalStateException naming {@code what} and the state when the deadline passes
   */
  public static void until(
      String what, Duration timeout, BooleanSupplier condition, Supplier<String> state)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "timed out after " + timeout + " waiting for " + what + "; state: " + state.get());
      }
      Thread.sleep(POLL.toMillis());
    }
  }
}
