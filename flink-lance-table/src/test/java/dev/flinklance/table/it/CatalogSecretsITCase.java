package dev.flinklance.table.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.table.testing.Sql;
import dev.flinklance.testing.HeaderEchoingNamespace;
import dev.flinklance.testing.LogCapture;
import dev.flinklance.testing.TestClusters;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A REST namespace whose errors echo the request's headers, the {@code Authorization} token among
 * them: every statement of the catalog's life, each run with each of its namespace requests failing
 * in turn (on the client, and in the jobs' tasks), then once without a failure. The token is in no
 * message, no cause, no suppressed exception and no log line, and each failure still says what the
 * namespace answered.
 */
class CatalogSecretsITCase {
  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();

  /** The server's answer with Secrets' mask in place of the header's value or the token. */
  private static final String ANSWER = "unauthorized: (Bearer )?\\*{6}";

  /** A statement fails at most at this many requests of its own (a guard against a loop). */
  private static final int MAX_REQUESTS = 40;

  private static final List<String> STATEMENTS =
      List.of(
          "SHOW DATABASES",
          "CREATE DATABASE db COMMENT 'c'",
          "SHOW TABLES IN db",
          "CREATE TABLE db.t (id BIGINT, v STRING)",
          "INSERT INTO db.t VALUES (1, 'one'), (2, 'two')",
          "SELECT * FROM db.t",
          "SHOW CREATE TABLE db.t",
          "ALTER TABLE db.t SET ('sink.max-rows-per-file' = '10')",
          "SELECT COUNT(*) FROM db.t FOR SYSTEM_TIME AS OF TIMESTAMP '2100-01-01 00:00:00'",
          "CALL lake.sys.create_tag('db.t', 'v')",
          "CALL lake.sys.compact('db.t')",
          "CREATE TABLE db.gone (id BIGINT)",
          "DROP TABLE db.gone",
          "DROP TABLE IF EXISTS db.nothing",
          "DROP DATABASE db CASCADE");

  @TempDir Path dir;

  /**
   * @param onward whether the requests after the failing one fail too (the statement's clean-up
   *     then fails as well, and logs), or succeed (the statement goes on past a failure it expects)
   */
  @ParameterizedTest(name = "every request from the failing one on: {0}")
  @ValueSource(booleans = {false, true})
  void noTokenAnErrorEchoesReachesAMessageACauseOrALog(boolean onward) throws Exception {
    String token = "echoed-token-" + System.nanoTime();
    List<String> failedRequests = new ArrayList<>();
    try (HeaderEchoingNamespace namespace =
            new HeaderEchoingNamespace("file://" + dir.resolve("lake"));
        LogCapture logs = LogCapture.start()) {
      TableEnvironment env = Sql.batch();
      Sql.exec(
          env,
          "CREATE CATALOG lake WITH ('type' = 'lance', 'impl' = 'rest', 'uri' = '"
              + namespace.uri()
              + "', 'header.Authorization' = 'Bearer "
              + token
              + "')");
      Sql.exec(env, "USE CATALOG lake");
      for (String statement : STATEMENTS) {
        for (int request = 1; ; request++) {
          assertThat(request).as(statement).isLessThan(MAX_REQUESTS);
          if (onward) {
            namespace.failFrom(namespace.requests() + request);
          } else {
            namespace.failAt(namespace.requests() + request);
          }
          try {
            run(env, statement);
          } catch (RuntimeException e) {
            failedRequests.add(statement + " at " + namespace.failed());
            assertClean(statement + " at " + namespace.failed(), e, token);
            continue;
          }
          if (namespace.failed() == null) {
            break; // the statement made fewer requests: it ran without a failure
          }
        }
      }
      assertThat(logs.text()).doesNotContain(token).containsPattern(ANSWER);
    }
    // every statement met the namespace at least once, and failed there
    assertThat(failedRequests.stream().map(failed -> failed.split(" at ")[0]).distinct())
        .containsExactlyElementsOf(STATEMENTS);
  }

  private static void run(TableEnvironment env, String statement) {
    if (statement.startsWith("INSERT")) {
      Sql.exec(env, statement);
    } else {
      Sql.query(env, statement);
    }
  }

  /**
   * No throwable of the chain names the token; the server's answer is there, masked (or, for a
   * compaction, the failure points at the TaskManagers' log, which holds it).
   */
  private static void assertClean(String what, Throwable failure, String token) {
    StringWriter printed = new StringWriter();
    failure.printStackTrace(new PrintWriter(printed));
    assertThat(printed.toString()).as(what).doesNotContain(token);
    if (!printed.toString().contains("the TaskManagers' log has the cause")) {
      assertThat(printed.toString()).as(what).containsPattern(ANSWER);
    }
    for (Throwable t : chain(failure)) {
      assertThat(String.valueOf(t.getMessage())).as(what).doesNotContain(token);
      assertThat(String.valueOf(t.getLocalizedMessage())).as(what).doesNotContain(token);
      assertThat(t.toString()).as(what).doesNotContain(token);
    }
  }

  /** Every throwable reachable through causes and suppressed exceptions. */
  private static Set<Throwable> chain(Throwable failure) {
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    List<Throwable> todo = new ArrayList<>(List.of(failure));
    while (!todo.isEmpty()) {
      Throwable t = todo.remove(todo.size() - 1);
      if (t != null && seen.add(t)) {
        todo.add(t.getCause());
        todo.addAll(List.of(t.getSuppressed()));
      }
    }
    return seen;
  }
}
