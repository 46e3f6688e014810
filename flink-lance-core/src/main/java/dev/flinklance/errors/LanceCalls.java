package dev.flinklance.errors;

import java.util.function.Predicate;
import org.apache.flink.annotation.Internal;

/**
 * Calls into Lance with their failures wrapped once, naming the table ({@link
 * LanceDatasetException#wrap}). The calls catch {@link Exception}, not only runtime exceptions:
 * Lance's native code also throws checked {@code IOException}s that its methods do not declare. A
 * {@link LanceDatasetException} from inside (a nested call that already named the table) passes
 * unchanged.
 */
@Internal
public final class LanceCalls {

  /** A call into Lance that returns a value. */
  @FunctionalInterface
  public interface Call<T> {
    T call() throws Exception;
  }

  /** A call into Lance that returns nothing. */
  @FunctionalInterface
  public interface Action {
    void run() throws Exception;
  }

  private LanceCalls() {}

  /**
   * @param problem what failed, for the message: "cannot open the table"
   */
  public static <T> T call(String uri, String problem, Call<T> call) {
    return callOr(uri, problem, call, e -> false, null);
  }

  public static void run(String uri, String problem, Action action) {
    call(
        uri,
        problem,
        () -> {
          action.run();
          return null;
        });
  }

  /**
   * As {@link #call}, but a failure that {@code expected} accepts (such as {@link
   * LanceErrors#isNotFound}) is an answer: {@code otherwise} is returned.
   */
  public static <T> T callOr(
      String uri, String problem, Call<T> call, Predicate<Throwable> expected, T otherwise) {
    try {
      return call.call();
    } catch (LanceDatasetException e) {
      throw e;
    } catch (Exception e) {
      if (expected.test(e)) {
        return otherwise;
      }
      throw LanceDatasetException.wrap(uri, problem, e);
    }
  }
}
