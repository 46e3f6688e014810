package dev.flinklance.cdc;

import java.io.Serializable;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.flink.annotation.Internal;

/**
 * Which source tables the sync takes and the Lance table each one becomes: a source table is taken
 * when its name (without the source database) matches {@code include} in full and does not match
 * {@code exclude} in full; its Lance table is {@code <database>.<prefix><name><suffix>}.
 */
@Internal
final class TableRouting implements Serializable {
  private static final long serialVersionUID = 1L;

  private final String database;
  private final Pattern include;
  private final Pattern exclude;
  private final String prefix;
  private final String suffix;

  /**
   * @param include regular expression, null for every table
   * @param exclude regular expression, null for none
   * @throws IllegalArgumentException naming the argument whose expression does not compile
   */
  TableRouting(String database, String include, String exclude, String prefix, String suffix) {
    this.database = database;
    this.include = include == null ? null : compile("--include-tables", include);
    this.exclude = exclude == null ? null : compile("--exclude-tables", exclude);
    this.prefix = prefix;
    this.suffix = suffix;
  }

  String database() {
    return database;
  }

  /** The Lance table of the source table {@code table}, or empty if the sync leaves it out. */
  Optional<String> target(String table) {
    if ((include != null && !include.matcher(table).matches())
        || (exclude != null && exclude.matcher(table).matches())) {
      return Optional.empty();
    }
    return Optional.of(prefix + table + suffix);
  }

  private static Pattern compile(String argument, String expression) {
    try {
      return Pattern.compile(expression);
    } catch (PatternSyntaxException e) {
      throw new IllegalArgumentException(
          String.format(
              "%s '%s' is not a regular expression: %s", argument, expression, e.getDescription()));
    }
  }
}
