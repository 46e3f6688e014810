package dev.flinklance.config;

import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;

/**
 * Reading and checking an options class's values with messages that name the option: {@code Invalid
 * <kind> option '<key>': <problem>}, where the kind says whose option it is ("vector search",
 * "lookup").
 */
@Internal
public final class OptionChecks {
  private OptionChecks() {}

  /**
   * @throws IllegalArgumentException naming the option and the value Flink could not parse
   */
  public static <T> T parse(Configuration options, ConfigOption<T> option, String kind) {
    try {
      return options.get(option);
    } catch (IllegalArgumentException e) {
      Throwable cause = e;
      while (cause.getCause() != null) {
        cause = cause.getCause();
      }
      throw new IllegalArgumentException(
          String.format(
              "Invalid %s option '%s': cannot parse '%s' (%s)",
              kind, option.key(), options.toMap().get(option.key()), cause.getMessage()),
          e);
    }
  }

  /**
   * @throws IllegalArgumentException naming the option and the problem, unless {@code condition}
   */
  public static void require(boolean condition, String key, String kind, String problem) {
    if (!condition) {
      throw invalid(key, kind, problem);
    }
  }

  /** The failure naming the option and the problem, for checks that build it themselves. */
  public static IllegalArgumentException invalid(String key, String kind, String problem) {
    return new IllegalArgumentException(
        String.format("Invalid %s option '%s': %s", kind, key, problem));
  }
}
