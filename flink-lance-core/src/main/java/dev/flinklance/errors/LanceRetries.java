package dev.flinklance.errors;

import dev.flinklance.errors.LanceErrors.Kind;
import java.time.Duration;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.flink.annotation.Internal;
import org.apache.flink.util.concurrent.ExponentialBackoffRetryStrategy;
import org.apache.flink.util.concurrent.FixedRetryStrategy;
import org.apache.flink.util.concurrent.RetryStrategy;

/**
 * The one retry loop: Flink's {@link RetryStrategy} for how often and how long to wait, {@link
 * LanceErrors#kindOf} for what is retried. A permanent failure is never retried, whatever the
 * caller asks for. The waits are on the calling thread.
 */
@Internal
public final class LanceRetries {

  /** One attempt; a checked exception it throws ends the retries. */
  @FunctionalInterface
  public interface Attempt<T, E extends Exception> {
    T run() throws E;
  }

  /** What a caller does before a retry: log, count, look at the table again. */
  @FunctionalInterface
  public interface BeforeRetry {
    /**
     * @param retry 1 before the first retry
     */
    void before(RuntimeException failure, int retry, Duration delay);
  }

  private LanceRetries() {}

  /** {@code retries} retries, waiting {@code first}, then twice as long each time, up to max. */
  public static RetryStrategy backoff(int retries, Duration first, Duration max) {
    return new ExponentialBackoffRetryStrategy(retries, first, max);
  }

  /** {@code retries} retries without a wait: for conflicts, retried on the newest version. */
  public static RetryStrategy atOnce(int retries) {
    return new FixedRetryStrategy(retries, Duration.ZERO);
  }

  /**
   * Runs {@code attempt}; after a failure whose kind is in {@code retried}, while {@code strategy}
   * has retries left, calls {@code beforeRetry}, waits the strategy's delay and runs it again.
   *
   * @throws RuntimeException the last failure, or the first one not to be retried
   * @throws E as the attempt throws it, never retried
   */
  public static <T, E extends Exception> T call(
      RetryStrategy strategy, Set<Kind> retried, Attempt<T, E> attempt, BeforeRetry beforeRetry)
      throws E, InterruptedException {
    RetryStrategy left = strategy;
    for (int retry = 1; ; retry++) {
      try {
        return attempt.run();
      } catch (RuntimeException e) {
        Kind kind = LanceErrors.kindOf(e);
        if (kind == Kind.PERMANENT
            || !retried.contains(kind)
            || left.getNumRemainingRetries() <= 0) {
          throw e;
        }
        beforeRetry.before(e, retry, left.getRetryDelay());
        sleep(left.getRetryDelay());
        left = left.getNextRetryStrategy();
      }
    }
  }

  /** As {@link #call} with {@link #atOnce}: for conflicts, which need no wait. */
  public static <T, E extends Exception> T callAtOnce(
      int retries, Set<Kind> retried, Attempt<T, E> attempt, BeforeRetry beforeRetry) throws E {
    try {
      return call(atOnce(retries), retried, attempt, beforeRetry);
    } catch (InterruptedException e) {
      throw new IllegalStateException("unreachable: retries at once never wait", e);
    }
  }

  /**
   * Looks until {@code done} accepts the answer or {@code strategy}'s retries run out, waiting its
   * delays in between.
   *
   * @return the last answer
   */
  public static <T> T poll(RetryStrategy strategy, Supplier<T> look, Predicate<T> done)
      throws InterruptedException {
    RetryStrategy left = strategy;
    T answer = look.get();
    while (!done.test(answer) && left.getNumRemainingRetries() > 0) {
      sleep(left.getRetryDelay());
      left = left.getNextRetryStrategy();
      answer = look.get();
    }
    return answer;
  }

  private static void sleep(Duration delay) throws InterruptedException {
    if (!delay.isZero()) {
      Thread.sleep(delay.toMillis());
    }
  }
}
