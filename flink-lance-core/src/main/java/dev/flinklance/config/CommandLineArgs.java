package dev.flinklance.config;

import dev.flinklance.compat.CommandLine;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.annotation.Internal;

/**
 * The command line of the connector's programs ({@code LanceCompactionJob}, {@code
 * LanceVectorIndex}): {@code --key value} pairs and value-less switches, read by Flink's {@code
 * ParameterTool}, with one set of rules for what is unknown or incomplete.
 */
@Internal
public final class CommandLineArgs {
  private static final String NO_VALUE = "__NO_VALUE_KEY";
  private static final Pattern CULPRIT = Pattern.compile("on '(.*)'\\. Please prefix keys");

  private final Map<String, String> values;

  private CommandLineArgs(Map<String, String> values) {
    this.values = values;
  }

  /**
   * @param switches keys that take no value (e.g. {@code once})
   * @param known which other keys the program takes (names without {@code --})
   * @throws IllegalArgumentException naming the argument that is unknown, lacks its value, or
   *     stands where a key was expected
   */
  public static CommandLineArgs parse(
      String[] args, Set<String> switches, Predicate<String> known) {
    Map<String, String> values;
    try {
      values = new TreeMap<>(CommandLine.parse(args));
    } catch (IllegalArgumentException e) {
      // ParameterTool's message repeats every argument, secrets included: name only the culprit
      Matcher culprit = CULPRIT.matcher(String.valueOf(e.getMessage()));
      throw new IllegalArgumentException(
          culprit.find()
              ? "unexpected argument '" + culprit.group(1) + "' (keys start with --)"
              : "unreadable arguments");
    }
    for (Map.Entry<String, String> entry : values.entrySet()) {
      String key = entry.getKey();
      boolean valueless = NO_VALUE.equals(entry.getValue());
      if (switches.contains(key)) {
        if (!valueless) {
          throw new IllegalArgumentException(
              String.format("--%s takes no value (got '%s')", key, entry.getValue()));
        }
      } else if (!known.test(key)) {
        throw new IllegalArgumentException("unknown argument '--" + key + "'");
      } else if (valueless) {
        throw new IllegalArgumentException("missing value for --" + key);
      }
    }
    return new CommandLineArgs(values);
  }

  public boolean has(String key) {
    return values.containsKey(key);
  }

  public Optional<String> get(String key) {
    return Optional.ofNullable(values.get(key)).filter(value -> !NO_VALUE.equals(value));
  }

  /** Every {@code --<prefix>...} argument, keys as given (with the prefix). */
  public Map<String, String> withPrefix(String prefix) {
    Map<String, String> matching = new TreeMap<>();
    values.forEach(
        (key, value) -> {
          if (key.startsWith(prefix)) {
            matching.put(key, value);
          }
        });
    return matching;
  }

  /** Every argument but the switches. */
  public Map<String, String> values() {
    Map<String, String> withValues = new TreeMap<>(values);
    withValues.values().removeIf(NO_VALUE::equals);
    return withValues;
  }
}
