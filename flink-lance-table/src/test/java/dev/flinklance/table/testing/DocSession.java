package dev.flinklance.table.testing;

import dev.flinklance.testing.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
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
 *
 * <p>A streaming read of a Lance table never ends: a statement that reads one ({@code
 * 'scan.streaming' = 'true'} in it, or a table declared with that option after its {@code FROM} or
 * {@code JOIN}) runs until its job has been running for a moment, then stops with a savepoint, as a
 * reader would stop it; the sink of an {@code INSERT} commits what it wrote on that savepoint. A
 * job that failed meanwhile fails the statement.
 */
public final class DocSession {
  private static final Pattern SET = Pattern.compile("(?is)SET\\s+'([^']+)'\\s*=\\s*'([^']*)'");
  private static final String MODE = ExecutionOptions.RUNTIME_MODE.key();

  /** Statements a session runs alike in either mode. */
  private static final Set<String> MODELESS =
      Set.of("CREATE", "DROP", "ALTER", "USE", "SHOW", "DESCRIBE");

  private static final Pattern STREAMING = Pattern.compile("(?i)'scan\\.streaming'\\s*=\\s*'true'");
  private static final Pattern CREATE_TABLE =
      Pattern.compile(
          "(?is)CREATE\\s+(?:TEMPORARY\\s+)?TABLE\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?([`\\w.]+)");
  private static final Pattern QUERY = Pattern.compile("(?i)\\s*(SELECT|WITH|VALUES)\\b");
  private static final Pattern READ_TABLE = Pattern.compile("(?i)\\b(?:FROM|JOIN)\\s+([`\\w.]+)");

  /** How long a streaming read runs before it is stopped. */
  private static final Duration STREAMING_RUN = Duration.ofSeconds(3);

  private static final Duration JOB_TIMEOUT = Duration.ofMinutes(2);

  private final TableEnvironment env;
  private final Path savepoints;
  private final Set<String> streamingTables = new HashSet<>();
  private boolean modeUsed;

  /**
   * @param statements the page's statements, to find the runtime mode it sets
   * @param savepoints where streaming reads stop with their savepoints
   */
  public DocSession(List<String> statements, Path savepoints) {
    this.savepoints = savepoints;
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
    Matcher create = CREATE_TABLE.matcher(statement);
    if (create.lookingAt() && STREAMING.matcher(statement).find()) {
      streamingTables.add(tableName(create.group(1)));
    } else if (readsStreaming(statement)) {
      runUntilStopped(env.executeSql(statement));
      return;
    }
    TableResult result = env.executeSql(statement);
    if (!QUERY.matcher(statement).lookingAt()) {
      // Draining a query's rows waits for its end; await() on a query once kept waiting for an
      // hour after its job (a FETCH NEXT 5 ROWS) had finished (Flink 2.3).
      result.await();
    }
    try (CloseableIterator<Row> rows = result.collect()) {
      rows.forEachRemaining(row -> {});
    }
  }

  private boolean readsStreaming(String statement) {
    if (STREAMING.matcher(statement).find()) {
      return true;
    }
    Matcher read = READ_TABLE.matcher(statement);
    while (read.find()) {
      if (streamingTables.contains(tableName(read.group(1)))) {
        return true;
      }
    }
    return false;
  }

  private static String tableName(String identifier) {
    String[] parts = identifier.replace("`", "").split("\\.");
    return parts[parts.length - 1].toLowerCase(Locale.ROOT);
  }

  private void runUntilStopped(TableResult result) throws Exception {
    JobClient job =
        result
            .getJobClient()
            .orElseThrow(() -> new IllegalStateException("a streaming read without a job"));
    CompletableFuture<Void> drained =
        CompletableFuture.runAsync(
            () -> {
              try (CloseableIterator<Row> rows = result.collect()) {
                rows.forEachRemaining(row -> {});
              } catch (Exception e) {
                throw new CompletionException(e);
              }
            });
    Await.until(
        "the streaming read to start",
        JOB_TIMEOUT,
        job,
        () -> job.getJobStatus().get() == JobStatus.RUNNING);
    Thread.sleep(STREAMING_RUN.toMillis()); // lets the read run a while before it is stopped
    failIfEnded(job);
    job.stopWithSavepoint(false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
        .get(JOB_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    try {
      drained.get(JOB_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      // a query's result iterator may report the stop itself; a failure of the job would have
      // failed the stop
    }
  }

  /** Throws the job's failure if it ended before it was stopped. */
  private static void failIfEnded(JobClient job) throws Exception {
    JobStatus status = job.getJobStatus().get();
    if (status.isGloballyTerminalState()) {
      job.getJobExecutionResult().get(JOB_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      throw new AssertionError("the streaming read ended by itself (" + status + ")");
    }
  }
}
