package dev.flinklance.table.lookup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.access.TableRef;
import dev.flinklance.errors.LanceDatasetException;
import dev.flinklance.errors.PermanentDatasetException;
import dev.flinklance.table.testing.LookupJoin;
import dev.flinklance.table.testing.LookupJoin.Probe;
import dev.flinklance.table.testing.Users;
import dev.flinklance.testing.LogCapture;
import dev.flinklance.testing.S3TestServer;
import dev.flinklance.testing.S3TestServer.S3Request;
import dev.flinklance.testing.TestClusters;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A lookup join against an {@code s3://} table on the S3 test server: exact rows while lance-core
 * changes the table, and an object store's failure retried per {@code lookup.max-retries} (Lance's
 * own retries off, so that each injected 503 fails one read).
 */
class S3LookupJoinITCase {
  private static final int USERS = 200;
  private static final Duration REFRESH = Duration.ofMillis(200);
  private static final Predicate<S3Request> DATA_READ =
      request -> request.method().equals("GET") && request.key().contains("/data/");

  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();
  @RegisterExtension static final S3TestServer S3 = new S3TestServer();

  private static TableRef table(String name) throws Exception {
    Map<String, String> storage = new HashMap<>(S3.storageOptions());
    storage.put("client_max_retries", "0");
    storage.put("download_retry_count", "0");
    TableRef table = new TableRef(S3.newUri(name), storage);
    List<RowData> rows = new ArrayList<>(Users.rows(0, USERS, 0));
    rows.add(Users.row(LookupJoin.SENTINEL, 0));
    LookupJoin.upsert(table, rows, true);
    LanceScalarIndex.create(table, "id");
    return table;
  }

  private static String options(TableRef table, String more) {
    return String.format(
            "'path' = '%s', 'lookup.refresh-interval' = '%d ms'", table.uri(), REFRESH.toMillis())
        + table.storageOptions().entrySet().stream()
            .map(e -> String.format(", 'storage.%s' = '%s'", e.getKey(), e.getValue()))
            .collect(Collectors.joining())
        + more;
  }

  private static List<String> expected(
      LookupJoin join, TableRef table, List<Probe> probes, int subtasks) {
    return LookupJoin.expected(
        probes,
        subtasks,
        join.nextSeq(),
        Users.read(table.uri(), table.storageOptions()).values(),
        (probe, row) -> probe.id() != null && probe.id().equals(row.get(0)));
  }

  private static void assertPhase(
      LookupJoin join, TableRef table, List<Probe> probes, String phase) {
    List<String> expected = expected(join, table, probes, 2);
    assertThat(join.probe(probes, expected))
        .as(phase)
        .containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  @Timeout(value = 300, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void lookupsFollowTheTableWhileLanceChangesIt() throws Exception {
    TableRef table = table("users");
    List<Probe> probes = new ArrayList<>();
    for (long id = -1; id < USERS + 20; id += 3) {
      probes.add(Probe.ofId(id));
    }
    try (LookupJoin join =
        new LookupJoin(2, options(table, ", 'lookup.async' = 'true'"), "c.id = u.id", REFRESH)) {
      join.awaitGeneration(0, System.nanoTime());
      assertPhase(join, table, probes, "as written");
      Users.delete(table, "id % 4 = 1");
      List<RowData> merged = new ArrayList<>(Users.rows(USERS, USERS + 20, 1));
      for (long id = 0; id < USERS; id += 6) {
        merged.add(Users.row(id, 1));
      }
      merged.add(Users.row(LookupJoin.SENTINEL, 1));
      Users.mergeInsert(table, merged);
      join.awaitGeneration(1, System.nanoTime());
      assertPhase(join, table, probes, "after lance-core's delete and merge-insert");
      assertThat(join.finish()).isEmpty();
    }
  }

  /**
   * Lance itself tries a failed GET 4 times even with {@code client_max_retries} and {@code
   * download_retry_count} 0 (measured with lance-core 7.0.0), so 4 injected 503s fail one read.
   */
  private static final int FAILURES_PER_FAILED_READ = 4;

  @Test
  @Timeout(value = 300, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aFailedReadIsRetriedPerMaxRetries() throws Exception {
    TableRef table = table("flaky");
    try (LogCapture logs = LogCapture.start();
        LookupJoin join =
            new LookupJoin(
                1, options(table, ", 'lookup.max-retries' = '2'"), "c.id = u.id", REFRESH)) {
      join.awaitGeneration(0, System.nanoTime());
      List<Probe> probe = List.of(Probe.ofId(5L));
      List<String> expected = expected(join, table, probe, 1);
      S3.failNext(FAILURES_PER_FAILED_READ, DATA_READ);
      assertThat(join.probe(probe, expected)).containsExactlyElementsOf(expected);
      assertThat(S3.pendingFailures()).as("the failures met the lookup").isZero();
      assertThat(logs.text())
          .contains("Lookup of 1 keys in " + table.uri() + " failed (retry 1 of 2");
    } finally {
      S3.failNext(0);
    }
  }

  @Test
  @Timeout(value = 300, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aFailedReadWithoutRetriesLeftFailsTheJobNamingTheTable() throws Exception {
    TableRef table = table("failing");
    try (LookupJoin join =
        new LookupJoin(1, options(table, ", 'lookup.max-retries' = '0'"), "c.id = u.id", REFRESH)) {
      join.awaitGeneration(0, System.nanoTime());
      S3.failNext(FAILURES_PER_FAILED_READ, DATA_READ);
      Throwable failure = join.probeUntilTheJobFails(Probe.ofId(6L));
      assertThat(ExceptionUtils.findThrowable(failure, LanceDatasetException.class))
          .hasValueSatisfying(e -> assertThat(e).hasMessageContaining(table.uri()));
      assertThat(ExceptionUtils.findThrowable(failure, PermanentDatasetException.class))
          .as("a restart may find the store well again")
          .isEmpty();
    } finally {
      S3.failNext(0);
    }
  }
}
