package dev.flinklance.table.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import dev.flinklance.table.testing.DocLocations;
import dev.flinklance.table.testing.DocSession;
import dev.flinklance.table.testing.DocSql;
import dev.flinklance.table.testing.DocSql.DocStatement;
import dev.flinklance.testing.Repository;
import dev.flinklance.testing.S3TestServer;
import dev.flinklance.testing.TestClusters;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.flink.runtime.util.EnvironmentInformation;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every SQL example of the documentation runs: each {@code ```sql} block of README.md and
 * docs/*.md, and docker/sql's init.sql followed by walkthrough.sql (as the compose file's SQL
 * client runs them), statement by statement, against real Lance tables on the MiniCluster and the
 * S3 test server. Any error fails the test, naming the file, line and statement; so does a page
 * location that holds nothing once the page has run.
 *
 * <p>The conventions a page follows so that its SQL runs and still reads well:
 *
 * <ul>
 *   <li>The blocks of one file run in order in one session, as a reader would paste them into the
 *       SQL client: a block may use what an earlier block created, and a {@code USE CATALOG} or
 *       {@code SET} stays in force for the blocks after it.
 *   <li>A session runs in streaming mode, as the SQL client's does, unless the page sets {@code
 *       'execution.runtime-mode'}, once, before its first query, INSERT or CALL ({@link
 *       DocSession}).
 *   <li>Locations stay the reader's: the value of every {@code 'path'} and {@code 'warehouse'}
 *       option moves to a directory of this test (local paths, {@code file://}) or to the {@link
 *       S3TestServer} ({@code s3://bucket/...}, with the server's endpoint, credentials and region
 *       in place of the connection options the page shows, which must follow the location). One
 *       location of a page stays one location; pages do not share any ({@link DocLocations}).
 *   <li>What a block uses but does not show (the reader's own source, a table that exists already)
 *       comes from a hidden setup comment before it, run at its place in the page: {@code <!--
 *       sql-setup: CREATE TEMPORARY TABLE clicks (...) WITH ('connector' = 'datagen',
 *       'number-of-rows' = '100'); -->}. Keep it small; name its tables as the text would.
 *   <li>No placeholders ({@code SELECT ...}) and no statement that is not meant to run: a block
 *       shows complete SQL that works; what does not work is said in the text around it.
 *   <li>Every input ends: {@code datagen} sources have {@code number-of-rows}. A streaming read of
 *       a Lance table ({@code 'scan.streaming' = 'true'} in the statement, or a table declared with
 *       it) does not: it runs for a moment and is stopped with a savepoint ({@link DocSession}).
 * </ul>
 */
class DocsSqlITCase {
  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();
  @RegisterExtension static final S3TestServer S3 = new S3TestServer();

  /** VECTOR_SEARCH is Flink 2.2+: on the 1.20 line its examples are left out. */
  private static final boolean HAS_VECTOR_SEARCH =
      !EnvironmentInformation.getVersion().startsWith("1.");

  @TempDir static Path dir;

  @TestFactory
  Stream<DynamicTest> everySqlExampleRuns() throws IOException {
    Path root = Repository.root();
    List<List<Path>> sessions = new ArrayList<>();
    sessions.add(List.of(root.resolve("README.md")));
    try (Stream<Path> pages = Files.list(root.resolve("docs"))) {
      pages
          .filter(p -> p.toString().endsWith(".md"))
          .sorted()
          .forEach(p -> sessions.add(List.of(p)));
    }
    sessions.add(
        List.of(root.resolve("docker/sql/init.sql"), root.resolve("docker/sql/walkthrough.sql")));
    List<DynamicTest> tests = new ArrayList<>();
    for (List<Path> files : sessions) {
      List<DocStatement> statements = new ArrayList<>();
      for (Path file : files) {
        DocSql.statements(root, file).stream()
            .filter(statement -> HAS_VECTOR_SEARCH || !statement.sql().contains("VECTOR_SEARCH"))
            .forEach(statements::add);
      }
      String page = root.relativize(files.get(0)).toString();
      if (!statements.isEmpty()) {
        tests.add(
            dynamicTest(
                page + ", " + statements.size() + " statements", () -> run(files, statements)));
      }
    }
    assertThat(tests).as("pages with SQL").hasSizeGreaterThan(1);
    return tests.stream();
  }

  private static void run(List<Path> files, List<DocStatement> statements) throws IOException {
    String namespace = files.get(0).getFileName().toString().replaceFirst("\\.\\w+$", "");
    DocLocations locations = new DocLocations(dir, S3, namespace);
    DocSession session =
        new DocSession(
            statements.stream().map(DocStatement::sql).toList(),
            dir.resolve(namespace + "-savepoints"));
    for (DocStatement statement : statements) {
      String sql = locations.rewrite(statement.sql());
      try {
        session.run(sql);
      } catch (Exception e) {
        throw new AssertionError(
            String.format(
                "%s%s: %s%n%sfailed: %s",
                statement.where(),
                statement.hidden() ? " (sql-setup)" : "",
                statement.sql(),
                sql.equals(statement.sql()) ? "" : "run as: " + sql + "\n",
                messages(e)),
            e);
      }
    }
    for (String location : locations.locations()) {
      assertThat(written(location)).as("what %s wrote at %s", namespace, location).isNotEmpty();
    }
  }

  private static List<String> written(String location) throws IOException {
    if (location.startsWith("s3://")) {
      return S3.keys(location);
    }
    Path path = Path.of(location.replaceFirst("^file://", ""));
    if (!Files.isDirectory(path)) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(path)) {
      return files.filter(Files::isRegularFile).map(Path::toString).toList();
    }
  }

  private static String messages(Throwable e) {
    StringBuilder text = new StringBuilder(String.valueOf(e.getMessage()));
    for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
      text.append("\n  caused by: ").append(cause);
    }
    return text.toString();
  }
}
