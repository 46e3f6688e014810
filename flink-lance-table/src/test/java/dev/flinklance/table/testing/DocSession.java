package dev.flinklance.table.testing;

import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

/**
 * A SQL client session for the statements of one documentation page, in one {@link
 * TableEnvironment}: {@code SET 'key' = 'value'} as the client takes it (a TableEnvironment does
 * not), every statement run to its end (a job waited for, a query's rows read). A TableEnvironment
 * cannot change its runtime mode, so the page's one mode (streaming unless it sets one) is chosen
 * up front, and its {@code SET} must come before anything that depends on the mode.
 */
public final class DocSession {
  private static final Pattern SET = Pattern.compile("(?is)SET\\s+'([^']+)'\\s*=\\s*'([^']*)'");
  private static final String MODE = ExecutionOptions.RUNTIME_MODE.key();

  /** Statements a session runs alike in either mode. */
  private static final Set<String> MODELESS =
      Set.of("CREATE", "DROP", "ALTER", "USE", "SHOW", "DESCRIBE");

  private final TableEnvironment env;
  private boolean modeUsed;

  /**
   * @param statements the page's statements, to find the runtime mode it sets
   */
  public DocSession(List<String> statements) {
    Configuration config = new Configuration();
    statements.stream()
        .map(SET::matcher)
        .filter(set -> set.matches() && set.group(1).equals(MODE))
        .map(set -> set.group(2))
        .distinct()
        .reduce(
            (a, b) -> {
              throw new IllegalArgumentException(
                  "a page runs in one runtime mode, this one sets " + a + " and " + b);
            })
        .ifPresent(mode -> config.setString(MODE, mode));
    env = Sql.session(config);
  }

  public void run(String statement) throws Exception {
    Matcher set = SET.matcher(statement);
    if (set.matches()) {
      if (set.group(1).equals(MODE) && modeUsed) {
        throw new IllegalArgumentException(
            "the runtime mode is set after a statement that depends on it; set it before the"
                + " page's first query, INSERT or CALL");
      }
      env.getConfig().set(set.group(1), set.group(2));
      return;
    }
    modeUsed |= !MODELESS.contains(statement.split("\\s+", 2)[0].toUpperCase());
    TableResult result = env.executeSql(statement);
    result.await();
    try (CloseableIterator<Row> rows = result.collect()) {
      rows.forEachRemaining(row -> {});
    }
  }
}
