package dev.flinklance.errors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.flinklance.testing.S3TestServer;
import dev.flinklance.testing.TestFragments;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.lance.CommitBuilder;
import org.lance.Dataset;
import org.lance.ReadOptions;
import org.lance.Transaction;
import org.lance.WriteParams;
import org.lance.compaction.Compaction;
import org.lance.compaction.CompactionOptions;
import org.lance.compaction.CompactionPlan;
import org.lance.compaction.CompactionTask;
import org.lance.compaction.RewriteResult;
import org.lance.operation.Append;
import org.lance.operation.Overwrite;

/**
 * {@link LanceErrors} recognises lance-core's failures by their message texts. Each class is
 * provoked here with real lance-core, so a lance-core upgrade that rewords one fails this test
 * instead of silently turning a permanent failure into a restart loop (or the reverse).
 */
class LanceErrorsContractITCase {
  @RegisterExtension static final S3TestServer S3 = new S3TestServer();

  @TempDir Path dir;

  private BufferAllocator allocator;
  private String uri;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    uri = dir.resolve("t.lance").toString();
    TestFragments.createTable(uri);
    append(uri, Map.of(), 1, 2, 3);
    append(uri, Map.of(), 4, 5, 6);
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  private Dataset open(String at, Map<String, String> storageOptions) {
    return Dataset.open()
        .allocator(allocator)
        .uri(at)
        .readOptions(new ReadOptions.Builder().setStorageOptions(storageOptions).build())
        .build();
  }

  private void append(String at, Map<String, String> storageOptions, long... ids) {
    try (Dataset dataset = open(at, storageOptions);
        Transaction append =
            new Transaction.Builder()
                .readVersion(dataset.version())
                .operation(
                    Append.builder()
                        .fragments(TestFragments.write(at, storageOptions, ids))
                        .build())
                .build();
        Dataset ignored = new CommitBuilder(dataset).execute(append)) {
      // committed
    }
  }

  private static void assertClass(Throwable error, String expected) {
    assertThat(error).as("lance-core failed").isNotNull();
    Map<String, Boolean> classes = new HashMap<>();
    classes.put("not found", LanceErrors.isNotFound(error));
    classes.put("already exists", LanceErrors.isAlreadyExists(error));
    classes.put("conflict", LanceErrors.isCommitConflict(error));
    classes.put("permanent", LanceErrors.isPermanent(error));
    Map<String, Boolean> wanted = new HashMap<>();
    classes.keySet().forEach(key -> wanted.put(key, key.equals(expected)));
    assertThat(classes).as("classes of: %s", error.getMessage()).isEqualTo(wanted);
    LanceErrors.Kind kind =
        switch (expected) {
          case "permanent" -> LanceErrors.Kind.PERMANENT;
          case "conflict" -> LanceErrors.Kind.CONFLICT;
          default -> LanceErrors.Kind.TRANSIENT; // not found, already exists: the caller's answer
        };
    assertThat(LanceErrors.kindOf(error))
        .as("retry kind of: %s", error.getMessage())
        .isEqualTo(kind);
    assertThat(LanceErrors.kindOf(LanceDatasetException.wrap("t", "cannot", error)))
        .as("retry kind of the wrapped failure")
        .isEqualTo(kind);
  }

  @Test
  void notFound() {
    assertClass(
        catchThrowable(() -> open(dir.resolve("none.lance").toString(), Map.of())), "not found");
    assertClass(
        catchThrowable(
            () ->
                Dataset.open()
                    .allocator(allocator)
                    .uri(uri)
                    .readOptions(new ReadOptions.Builder().setVersion(99).build())
                    .build()),
        "not found");
  }

  @Test
  void alreadyExists() {
    assertClass(
        catchThrowable(
            () ->
                Dataset.create(
                    allocator, uri, TestFragments.SCHEMA, new WriteParams.Builder().build())),
        "already exists");
  }

  @Test
  void conflicts() throws Exception {
    // an Append read at version 3 cannot land after an Overwrite at version 4
    try (Dataset stale = open(uri, Map.of())) {
      try (Dataset current = open(uri, Map.of());
          Transaction overwrite =
              new Transaction.Builder()
                  .readVersion(current.version())
                  .operation(
                      Overwrite.builder()
                          .fragments(TestFragments.write(uri, 9))
                          .schema(TestFragments.SCHEMA)
                          .build())
                  .build();
          Dataset ignored = new CommitBuilder(current).execute(overwrite)) {
        // version 4
      }
      try (Transaction append =
          new Transaction.Builder()
              .readVersion(stale.version())
              .operation(Append.builder().fragments(TestFragments.write(uri, 7)).build())
              .build()) {
        assertClass(
            catchThrowable(() -> new CommitBuilder(stale).execute(append).close()), "conflict");
      }
    }

    // a compaction's rewrite preempted by a delete of its rows: retryable
    append(uri, Map.of(), 10, 11);
    try (Dataset dataset = open(uri, Map.of())) {
      CompactionOptions options = CompactionOptions.builder().build();
      CompactionPlan plan = Compaction.planCompaction(dataset, options);
      assertThat(plan.getCompactionTasks()).isNotEmpty();
      List<RewriteResult> results =
          plan.getCompactionTasks().stream().map(task -> rewrite(task, dataset)).toList();
      try (Dataset deleting = open(uri, Map.of())) {
        deleting.delete("id = 10");
      }
      assertClass(
          catchThrowable(() -> Compaction.commitCompaction(dataset, results, options)), "conflict");
    }
  }

  private static RewriteResult rewrite(CompactionTask task, Dataset dataset) {
    return task.execute(dataset);
  }

  @Test
  void permanentOnLocalDisks() {
    assertClass(
        catchThrowable(
            () ->
                Dataset.create(
                    allocator,
                    "/proc/x.lance",
                    TestFragments.SCHEMA,
                    new WriteParams.Builder().build())),
        "permanent");
    assertClass(
        catchThrowable(
            () ->
                Dataset.create(
                    allocator,
                    "/etc/hostname/x.lance",
                    TestFragments.SCHEMA,
                    new WriteParams.Builder().build())),
        "permanent");
    try (Dataset dataset = open(uri, Map.of())) {
      assertClass(catchThrowable(() -> dataset.delete("no_such_column = 1")), "permanent");
    }
  }

  @Test
  void permanentOnObjectStores() {
    Map<String, String> wrongSecret = new HashMap<>(S3.storageOptions());
    wrongSecret.put("aws_secret_access_key", "not-the-secret");
    assertClass(catchThrowable(() -> open(S3.newUri("t"), wrongSecret)), "permanent");

    Map<String, String> unknownKey = new HashMap<>(S3.storageOptions());
    unknownKey.put("aws_access_key_id", "nobody");
    assertClass(catchThrowable(() -> open(S3.newUri("t"), unknownKey)), "permanent");

    assertClass(
        catchThrowable(() -> open("s3://no-such-bucket/t.lance", S3.storageOptions())),
        "permanent");
  }

  @Test
  void transientOnObjectStores() {
    String table = S3.newUri("busy");
    TestFragments.createTable(table, S3.storageOptions(), TestFragments.SCHEMA);
    Map<String, String> fewRetries = new HashMap<>(S3.storageOptions());
    fewRetries.put("client_max_retries", "0");
    S3.failNext(1_000);
    try {
      assertClass(catchThrowable(() -> open(table, fewRetries)), "none");
    } finally {
      S3.failNext(0);
    }

    Map<String, String> refused = new HashMap<>(S3.storageOptions());
    refused.put("aws_endpoint", "http://127.0.0.1:1");
    refused.put("client_max_retries", "0");
    assertClass(catchThrowable(() -> open(table, refused)), "none");
  }
}
