package dev.flinklance.access;

import dev.flinklance.access.LanceDatasetOptions.ConditionalPutCheck;
import dev.flinklance.arrow.Allocators;
import dev.flinklance.errors.LanceCalls;
import dev.flinklance.errors.LanceDatasetException;
import dev.flinklance.errors.PermanentDatasetException;
import dev.flinklance.secrets.Secrets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.annotation.Internal;
import org.lance.Dataset;
import org.lance.ReadOptions;
import org.lance.WriteParams;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds out whether the object store behind a table honours create-only PUTs ({@code If-None-Match:
 * *}). Lance commits version N by writing its manifest with such a PUT; a store that ignores the
 * header lets two concurrent commits both write version N, and one of them is silently lost. S3
 * honours it, and so do many S3-compatible stores; some do not (S3Proxy before 2.8, for one).
 *
 * <p>Lance's Java API has no way to issue a conditional PUT directly, so the probe makes Lance do
 * it: it creates a throw-away table under the table's URI ({@code _flink_lance_probe/<uuid>}, where
 * the job can certainly write), lets {@link #RACERS} commits start from the same version at once,
 * and looks at the versions they report. On an honest store the losers of the race get 412, rebase
 * and land as later versions; on a store that ignores the header several commits report the same
 * version. A race that happens not to overlap proves nothing, so up to {@link #ROUNDS} rounds run;
 * the verdict "ignores" is certain, "honours" very likely. Then the probe table is dropped.
 *
 * <p>Runs once per table, store and JVM (the verdict is cached), and only for tables on an object
 * store; {@link LanceDatasetOptions#OBJECT_STORE_CONDITIONAL_PUT_CHECK} says what a bad verdict
 * does.
 */
@Internal
public final class ConditionalPutProbe {
  private static final Logger LOG = LoggerFactory.getLogger(ConditionalPutProbe.class);
  static final String PROBE_DIRECTORY = "_flink_lance_probe";

  /** Commits racing in each round (a test can hold this many create-only PUTs to force a race). */
  public static final int RACERS = 3;

  static final int ROUNDS = 2;
  private static final Schema SCHEMA =
      new Schema(List.of(Field.nullable("probe", new ArrowType.Int(32, true))));
  private static final ConcurrentMap<Key, CompletableFuture<Boolean>> VERDICTS =
      new ConcurrentHashMap<>();

  /** The cache key: a table on one store; never logged (the options may hold secrets). */
  private record Key(String uri, Map<String, String> storageOptions) {
    @Override
    public String toString() {
      return uri;
    }
  }

  private ConditionalPutProbe() {}

  /**
   * Probes the table's store unless this JVM already did or the table is local, then acts on the
   * verdict as the table's {@link ConditionalPutCheck} says.
   *
   * @throws PermanentDatasetException if the store ignores create-only PUTs and the check is {@code
   *     FAIL}
   * @throws LanceDatasetException if the probe cannot write to the store
   */
  public static void verify(TableRef table) {
    if (!table.onObjectStore() || table.conditionalPutCheck() == ConditionalPutCheck.SKIP) {
      return;
    }
    if (honoursCreateOnlyPuts(table)) {
      return;
    }
    String problem =
        String.format(
            "the object store ignores create-only writes (PUT with If-None-Match: *), which"
                + " Lance's commits rely on: concurrent commits to a probe table under the"
                + " table's URI claimed the same version, so concurrent writers to the table (two"
                + " jobs, a job and a compaction, a restarted job and its predecessor) would"
                + " silently overwrite each other's commits. Use a store that supports"
                + " conditional writes, or Lance's DynamoDB commit store (s3+ddb://). If only one"
                + " writer ever commits to this table, set '%s' = '%s' (or '%s') to go on.",
            LanceDatasetOptions.OBJECT_STORE_CONDITIONAL_PUT_CHECK.key(),
            ConditionalPutCheck.WARN,
            ConditionalPutCheck.SKIP);
    if (table.conditionalPutCheck() == ConditionalPutCheck.FAIL) {
      throw new PermanentDatasetException(table.uri(), problem, null); // restarts cannot fix it
    }
    LOG.warn("Lance table '{}': {}", table, problem);
  }

  /** The cached verdict, or a new probe; concurrent callers for one table share one probe. */
  static boolean honoursCreateOnlyPuts(TableRef table) {
    Key key = new Key(table.uri(), table.configuredStorageOptions()); // not what a namespace vends
    CompletableFuture<Boolean> mine = new CompletableFuture<>();
    CompletableFuture<Boolean> verdict = VERDICTS.putIfAbsent(key, mine);
    if (verdict == null) {
      verdict = mine;
      try {
        mine.complete(probe(table));
      } catch (RuntimeException | Error e) {
        VERDICTS.remove(key, mine); // a failed probe is not a verdict: try again next time
        mine.completeExceptionally(e);
      }
    }
    try {
      return verdict.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof Error error) {
        throw error;
      }
      throw (RuntimeException) e.getCause(); // probe() throws nothing checked
    }
  }

  private static boolean probe(TableRef table) {
    String probeUri = probeUri(table.uri(), UUID.randomUUID().toString());
    long start = System.nanoTime();
    ExecutorService racers = Executors.newFixedThreadPool(RACERS, ConditionalPutProbe::racerThread);
    BufferAllocator allocator = Allocators.forTables();
    try {
      create(table, probeUri, allocator);
      try {
        for (int round = 1; round <= ROUNDS; round++) {
          if (!raceCommits(table, probeUri, allocator, racers)) {
            LOG.info(
                "Probed the store of Lance table {} in {} ms: it ignores create-only PUTs",
                table,
                (System.nanoTime() - start) / 1_000_000);
            return false;
          }
        }
      } finally {
        drop(table, probeUri);
      }
    } finally {
      racers.shutdownNow();
      Allocators.closeAtEnd(allocator, table);
    }
    LOG.info(
        "Probed the store of Lance table {} in {} ms: it rejects a second create-only PUT",
        table,
        (System.nanoTime() - start) / 1_000_000);
    return true;
  }

  /**
   * {@code <table>/_flink_lance_probe/<id>}, before a query string (s3+ddb://...?ddbTableName=).
   */
  static String probeUri(String tableUri, String id) {
    int query = tableUri.indexOf('?');
    String path = query < 0 ? tableUri : tableUri.substring(0, query);
    String suffix = query < 0 ? "" : tableUri.substring(query);
    String separator = path.endsWith("/") ? "" : "/";
    return path + separator + PROBE_DIRECTORY + "/" + id + suffix;
  }

  private static void create(TableRef table, String probeUri, BufferAllocator allocator) {
    LanceCalls.run(
        table.uri(),
        String.format(
            "cannot create the probe table %s, which checks that the object store rejects a"
                + " second create-only PUT ('%s' = '%s' skips the check)",
            probeUri,
            LanceDatasetOptions.OBJECT_STORE_CONDITIONAL_PUT_CHECK.key(),
            ConditionalPutCheck.SKIP),
        () ->
            Dataset.write()
                .allocator(allocator)
                .uri(probeUri)
                .storageOptions(table.storageOptions())
                .schema(SCHEMA)
                .mode(WriteParams.WriteMode.CREATE)
                .execute()
                .close());
  }

  /**
   * One round: every racer opens the latest version, then all commit at once.
   *
   * @return false if two commits claimed the same version
   */
  private static boolean raceCommits(
      TableRef table, String probeUri, BufferAllocator allocator, ExecutorService racers) {
    // Every racer counts down once, opened or not, so that none waits for a racer that failed.
    CountDownLatch opened = new CountDownLatch(RACERS);
    AtomicBoolean openFailed = new AtomicBoolean();
    List<Future<Long>> commits = new ArrayList<>();
    for (int racer = 0; racer < RACERS; racer++) {
      String configKey = "flink-lance.probe." + racer;
      commits.add(
          racers.submit(
              () -> {
                Dataset dataset;
                try {
                  dataset = open(table, probeUri, allocator);
                } catch (Exception e) { // Lance also throws undeclared IOExceptions
                  openFailed.set(true);
                  opened.countDown();
                  throw e;
                }
                try (dataset) {
                  opened.countDown();
                  opened.await();
                  if (openFailed.get()) {
                    return null; // a round without all racers proves nothing
                  }
                  dataset.updateConfig(Map.of(configKey, "1"));
                  return dataset.version();
                }
              }));
    }
    Set<Long> versions = new HashSet<>();
    boolean distinct = true;
    for (Future<Long> commit : commits) {
      Long version = outcome(table, commit);
      if (version != null) {
        distinct &= versions.add(version);
      }
    }
    return distinct;
  }

  /**
   * The version a racer's commit reported, or null if it failed: the store pushed back somehow,
   * which is not the silent loss the probe looks for.
   */
  private static Long outcome(TableRef table, Future<Long> commit) {
    try {
      return commit.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LanceDatasetException(table.uri(), "interrupted while probing the store", e);
    } catch (ExecutionException e) {
      LOG.info(
          "A racing probe commit for Lance table {} failed (not a silent loss): {}",
          table,
          Secrets.redact(e.getCause().getMessage()));
      return null;
    }
  }

  private static Dataset open(TableRef table, String probeUri, BufferAllocator allocator) {
    return Dataset.open()
        .allocator(allocator)
        .uri(probeUri)
        .readOptions(new ReadOptions.Builder().setStorageOptions(table.storageOptions()).build())
        .build();
  }

  private static void drop(TableRef table, String probeUri) {
    try {
      Dataset.drop(probeUri, table.storageOptions());
    } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
      LOG.warn(
          "Cannot delete the probe table {} of Lance table {}; delete it by hand: {}",
          Secrets.redactUri(probeUri),
          table,
          Secrets.redact(e.getMessage()));
    }
  }

  private static Thread racerThread(Runnable task) {
    Thread thread = new Thread(task, "lance-conditional-put-probe");
    thread.setDaemon(true);
    return thread;
  }
}
