package dev.flinklance.e2e.soak;

import dev.flinklance.e2e.cluster.Await;
import dev.flinklance.e2e.cluster.ConnectorJars;
import dev.flinklance.e2e.cluster.FlinkCluster;
import dev.flinklance.e2e.cluster.FlinkRestClient;
import dev.flinklance.e2e.job.SoakJob;
import dev.flinklance.e2e.job.UpsertChangelogJob;
import dev.flinklance.testing.Changelog;
import dev.flinklance.testing.JvmProcess;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.S3TestServer;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;
import org.lance.JniLoader;

/**
 * The soak run (issue 32): on a standalone cluster of separate processes (two TaskManagers), an
 * append job and a PRIMARY KEY upsert job write at a steady rate with 500 ms checkpoints, in-job
 * compaction and version cleanup; a streaming changelog read copies the upsert table into a third
 * table; a plain lance-core reader in this JVM queries the written tables in a loop; a lookup join
 * probes the upsert table; a TaskManager running the upsert job is killed with {@code kill -9}
 * every {@link SoakConfig#killEvery} and replaced. One line per {@link SoakConfig#sampleEvery} (and
 * CSV rows in the run's directory); at the end, the checks of {@link #checks}.
 */
public final class SoakRun {
  /** One end check: what was checked, whether it held, and the numbers. */
  public record Check(String name, boolean passed, String detail) {
    @Override
    public String toString() {
      return (passed ? "PASS " : "FAIL ") + name + ": " + detail;
    }
  }

  private record MemorySample(double hours, String taskManager, long startedAtMillis, double mb) {}

  private static final Duration SETTLE_TIMEOUT = Duration.ofMinutes(3);
  // cleanup runs right after a compaction commits; allow for its own duration on a busy machine
  private static final Duration CLEANUP_SLACK = Duration.ofSeconds(30);

  private final SoakConfig config;
  private final FlinkCluster cluster;
  private final Path dir;
  private final PrintStream out;
  private final FlinkRestClient rest;
  private final ClusterProbe probe;
  private final Map<String, Long> taskManagerStarts = new HashMap<>();
  private final List<MemorySample> memory = new ArrayList<>();
  private final List<String> kills = new ArrayList<>();
  private final List<Long> killSeconds = new ArrayList<>();
  // the jobs that read (copy, lookup) by name: why they failed; the run goes on without them
  private final Map<String, String> readerFailures = new LinkedHashMap<>();
  private final S3TestServer s3;
  private final Map<String, String> storage;

  /**
   * @param cluster a running cluster with two TaskManagers of three slots each
   * @param dir an empty directory for the tables, the job jar and the CSV files
   * @param s3 a started server to keep the tables in ({@link SoakConfig#s3}), or null: local disk
   */
  public SoakRun(
      SoakConfig config, FlinkCluster cluster, Path dir, S3TestServer s3, PrintStream out) {
    this.config = config;
    this.cluster = cluster;
    this.dir = dir;
    this.s3 = s3;
    this.storage = s3 == null ? Map.of() : s3.storageOptions();
    this.out = out;
    this.rest = cluster.rest();
    this.probe = new ClusterProbe(rest);
  }

  /** Runs the soak and returns the end checks (it throws only when it could not run). */
  public List<Check> run() throws Exception {
    JniLoader.ensureLoaded();
    Files.createDirectories(dir);
    Path jar =
        config.connectorInLib()
            ? ConnectorJars.thinJobJar(
                SoakJob.class, dir.resolve("soak-job.jar"), List.of(Changelog.class))
            : ConnectorJars.jobJar(
                SoakJob.class, dir.resolve("soak-job.jar"), List.of(Changelog.class));
    String jarId = rest.uploadJar(jar);
    String job = SoakJob.class.getName();
    String options = config.jobOptions();
    out.printf(
        "soak: %s of writing, %d rows/s appended, %d changes/s over %d keys, %d lookups/s, a kill"
            + " every %s, %s, %s, the connector %s, TaskManager environment: %s%n",
        config.duration(),
        config.appendRowsPerSecond(),
        config.upsertChangesPerSecond(),
        config.keys(),
        config.lookupsPerSecond(),
        config.killEvery(),
        options,
        s3 == null
            ? "tables on local disk"
            : String.format(
                "tables in S3 (S3Proxy, every request %d ms late, %d in a row answered 503 every %s)",
                config.s3Delay().toMillis(), config.s3FailureBurst(), config.s3BurstEvery()),
        config.connectorInLib() ? "in lib/" : "in the job jar",
        System.getProperty("flink.taskmanager.env", "").isBlank()
            ? "as inherited"
            : System.getProperty("flink.taskmanager.env"));

    try (BufferAllocator allocator = new RootAllocator()) {
      Map<String, TableProbe> tables = new LinkedHashMap<>();
      for (String name : List.of("append", "upsert", "copy", "lookups")) {
        tables.put(name, table(name, allocator));
      }
      TableProbe lookups = tables.get("lookups");
      String storageArgument =
          storage.entrySet().stream()
              .map(e -> e.getKey() + "=" + e.getValue())
              .collect(Collectors.joining(","));
      String appendTable = tables.get("append").uri();
      String upsertTable = tables.get("upsert").uri();
      String appendJob =
          rest.runJar(
              jarId,
              job,
              List.of(
                  "append",
                  storageArgument,
                  appendTable,
                  Long.toString(config.appendRows()),
                  Long.toString(config.appendRowsPerSecond()),
                  options),
              2);
      String upsertJob =
          rest.runJar(
              jarId,
              job,
              List.of(
                  "upsert",
                  storageArgument,
                  upsertTable,
                  Long.toString(config.upsertChanges()),
                  Long.toString(config.upsertChangesPerSecond()),
                  options,
                  Long.toString(config.keys())),
              1);
      Await.until(
          "the upsert table's first version",
          SETTLE_TIMEOUT,
          () -> tables.get("upsert").exists() || failed(upsertJob),
          () -> rest.jobStatus(upsertJob));
      String copyJob =
          rest.runJar(
              jarId,
              job,
              List.of("copy", storageArgument, upsertTable, tables.get("copy").uri(), options),
              1);
      String lookupJob =
          rest.runJar(
              jarId,
              job,
              List.of(
                  "lookup",
                  storageArgument,
                  upsertTable,
                  lookups.uri(),
                  Long.toString(config.lookups()),
                  Long.toString(config.lookupsPerSecond()),
                  Long.toString(config.keys()),
                  options),
              1);
      Map<String, String> jobs =
          Map.of("append", appendJob, "upsert", upsertJob, "copy", copyJob, "lookup", lookupJob);

      PlainReader reader =
          new PlainReader(List.of(tables.get("append"), tables.get("upsert")), allocator);
      Thread readerThread = new Thread(reader, "soak-plain-reader");
      readerThread.setDaemon(true);
      readerThread.start();
      try {
        observe(tables, jobs, reader);
        if (!readerFailures.containsKey("copy")) {
          awaitCopyCaughtUp(tables.get("upsert"), tables.get("copy"), copyJob);
        }
      } finally {
        reader.stop();
        readerThread.join(Duration.ofMinutes(1).toMillis());
        cancel(copyJob);
      }
      for (TableProbe table : tables.values()) {
        table.walk();
      }
      List<Check> checks = checks(tables, lookups, jobs, reader);
      try {
        out.println("curves: " + SoakPlot.write(dir, killSeconds));
      } catch (IOException | RuntimeException e) { // the checks of an hour's run matter more
        out.println("curves not drawn: " + e);
      }
      return checks;
    }
  }

  private TableProbe table(String name, BufferAllocator allocator) {
    if (s3 == null) {
      Path path = dir.resolve(name + ".lance");
      return new TableProbe(name, path.toString(), storage, path, allocator);
    }
    String uri = s3.uri("soak/" + name + ".lance");
    return new TableProbe(name, uri, storage, s3.localPath(uri), allocator);
  }

  /** Samples, prints and kills until both generators' jobs have finished. */
  private void observe(Map<String, TableProbe> tables, Map<String, String> jobs, PlainReader reader)
      throws Exception {
    long start = System.currentTimeMillis();
    long deadline = start + config.duration().toMillis() + SETTLE_TIMEOUT.toMillis() * 2;
    long nextKill = start + config.killEvery().toMillis();
    long nextBurst = start + config.s3BurstEvery().toMillis();
    long lastKillBefore = start + config.duration().toMillis() - Duration.ofSeconds(30).toMillis();
    long lastSample = start;
    long lastAppendRows = 0;
    long lastSourceRecords = 0;
    for (JvmProcess tm : cluster.runningTaskManagers()) {
      taskManagerStarts.put(tm.name(), start);
    }
    try (PrintWriter series = new PrintWriter(Files.newBufferedWriter(dir.resolve("soak.csv")));
        PrintWriter memoryCsv =
            new PrintWriter(Files.newBufferedWriter(dir.resolve("soak-memory.csv")))) {
      series.println(
          "seconds,append_rows_per_s,upsert_changes_per_s,checkpoint_ms_append,"
              + "checkpoint_ms_upsert,checkpoint_ms_copy,commit_ms_append,commit_ms_upsert,"
              + "commit_ms_copy,"
              + tables.keySet().stream()
                  .map(
                      t ->
                          String.join(
                              ",",
                              t + "_fragments",
                              t + "_versions",
                              t + "_manifest_bytes",
                              t + "_files_on_disk",
                              t + "_files_referenced"))
                  .collect(Collectors.joining(","))
              + ",copy_versions_behind,copy_fetch_lag_ms,read_queries,read_mean_ms,read_max_ms,read_failures");
      memoryCsv.println("seconds,taskmanager,rss_mb,heap_used_mb");
      while (!finished(jobs.get("append"))
          || !finished(jobs.get("upsert"))
          || !(finished(jobs.get("lookup")) || readerFailures.containsKey("lookup"))) {
        for (String name : jobs.keySet()) {
          if (failed(jobs.get(name)) && !readerFailures.containsKey(name)) {
            String cause = rootCause(jobs.get(name));
            if (name.equals("append") || name.equals("upsert")) {
              throw new IllegalStateException(name + " job failed: " + cause);
            }
            out.printf("[%5ds] the %s job failed: %s%n", elapsedSeconds(start), name, cause);
            readerFailures.put(name, cause);
          }
        }
        long now = System.currentTimeMillis();
        if (now > deadline) {
          throw new IllegalStateException(
              "the bounded jobs did not finish in time: append "
                  + rest.jobStatus(jobs.get("append"))
                  + ", upsert "
                  + rest.jobStatus(jobs.get("upsert"))
                  + ", lookup "
                  + rest.jobStatus(jobs.get("lookup")));
        }
        if (now >= nextKill && now < lastKillBefore) {
          killAndReplace(jobs.get("upsert"), (now - start) / 1000);
          nextKill = System.currentTimeMillis() + config.killEvery().toMillis();
        }
        if (s3 != null && now >= nextBurst) {
          out.printf(
              "[%5ds] the next %d S3 requests answered 503%n",
              (now - start) / 1000, config.s3FailureBurst());
          s3.failNext(config.s3FailureBurst());
          nextBurst = now + config.s3BurstEvery().toMillis();
        }
        if (now - lastSample >= config.sampleEvery().toMillis()) {
          double seconds = (now - lastSample) / 1000.0;
          lastSample = now;
          for (TableProbe table : tables.values()) {
            if (table.exists()) {
              table.walk();
            }
          }
          Map<String, TableProbe.Shape> shapes = new LinkedHashMap<>();
          for (Map.Entry<String, TableProbe> table : tables.entrySet()) {
            if (table.getValue().exists()) {
              shapes.put(table.getKey(), table.getValue().sample());
            }
          }
          long appendRows = shapes.containsKey("append") ? shapes.get("append").rows() : 0;
          long appendRate = Math.round((appendRows - lastAppendRows) / seconds);
          lastAppendRows = appendRows;
          OptionalLong sourceRecords = probe.sourceRecordsOut(jobs.get("upsert"));
          String upsertRate = "-";
          if (sourceRecords.isPresent()) {
            long delta = sourceRecords.getAsLong() - lastSourceRecords;
            upsertRate = delta >= 0 ? Long.toString(Math.round(delta / seconds)) : "-";
            lastSourceRecords = sourceRecords.getAsLong();
          }
          Map<String, String> checkpoints = new LinkedHashMap<>();
          Map<String, String> commits = new LinkedHashMap<>();
          for (String name : List.of("append", "upsert", "copy")) {
            checkpoints.put(name, text(probe.lastCheckpointMillis(jobs.get(name))));
            commits.put(name, text(probe.operatorMetric(jobs.get(name), "lastCommitDurationMs")));
          }
          String lag = text(probe.operatorMetric(jobs.get("copy"), "versionsBehindLatest"));
          String fetchLag =
              text(probe.operatorMetric(jobs.get("copy"), "currentFetchEventTimeLag"));
          PlainReader.Stats reads = reader.drain();
          long elapsed = (now - start) / 1000;
          StringBuilder memoryText = new StringBuilder();
          for (JvmProcess tm : cluster.runningTaskManagers()) {
            OptionalLong rss = ClusterProbe.residentBytes(tm.pid());
            OptionalLong heap = probe.heapUsed(tm.name());
            if (rss.isEmpty()) {
              continue;
            }
            double rssMb = rss.getAsLong() / 1048576.0;
            memory.add(
                new MemorySample(
                    (now - start) / 3_600_000.0,
                    tm.name(),
                    taskManagerStarts.getOrDefault(tm.name(), now),
                    rssMb));
            String heapMb = heap.isPresent() ? Long.toString(heap.getAsLong() / 1048576) : "";
            memoryCsv.printf("%d,%s,%.0f,%s%n", elapsed, tm.name(), rssMb, heapMb);
            memoryText.append(
                String.format(" %s=%.0f/%s", tm.name(), rssMb, heapMb.isEmpty() ? "-" : heapMb));
          }
          out.printf(
              "[%5ds] rows/s %d chg/s %s | ckpt ms %s | commit ms %s | frags %s | versions %s"
                  + " | manifest KB %s | files disk/ref %s | RSS/heap MB%s | copy lag %s v %s ms"
                  + " | read ms %d/%d (%d q, %d failed)%n",
              elapsed,
              appendRate,
              upsertRate,
              checkpoints.values(),
              commits.values(),
              column(shapes, s -> Integer.toString(s.fragments())),
              column(shapes, s -> Integer.toString(s.versionsKept())),
              column(shapes, s -> Long.toString(s.manifestBytes() / 1024)),
              column(shapes, s -> s.dataFilesOnDisk() + "/" + s.dataFilesReferenced()),
              memoryText,
              lag,
              fetchLag,
              reads.meanMillis(),
              reads.maxMillis(),
              reads.queries(),
              reads.failures().size());
          reads.failures().forEach(f -> out.println("  plain reader failed: " + f));
          StringBuilder row = new StringBuilder();
          row.append(elapsed).append(',').append(appendRate).append(',');
          row.append(upsertRate.equals("-") ? "" : upsertRate);
          checkpoints.values().forEach(v -> row.append(',').append(v.equals("-") ? "" : v));
          commits.values().forEach(v -> row.append(',').append(v.equals("-") ? "" : v));
          for (String name : tables.keySet()) {
            TableProbe.Shape s = shapes.get(name);
            row.append(
                s == null
                    ? ",,,,,"
                    : String.format(
                        ",%d,%d,%d,%d,%d",
                        s.fragments(),
                        s.versionsKept(),
                        s.manifestBytes(),
                        s.dataFilesOnDisk(),
                        s.dataFilesReferenced()));
          }
          row.append(',').append(lag.equals("-") ? "" : lag);
          row.append(',').append(fetchLag.equals("-") ? "" : fetchLag);
          row.append(
              String.format(
                  ",%d,%d,%d,%d",
                  reads.queries(), reads.meanMillis(), reads.maxMillis(), reads.failures().size()));
          series.println(row);
          series.flush();
          memoryCsv.flush();
        }
        Thread.sleep(500);
      }
    }
  }

  /**
   * {@code kill -9} of the youngest TaskManager that runs the upsert job, then a new TaskManager.
   * After the first kill the oldest one (started with the run) is spared, even when it runs the
   * upsert job (the youngest is killed then): its RSS over the whole run is what the memory check
   * judges, and a cache that fills for half an hour shows only in a TaskManager that lives that
   * long.
   */
  private void killAndReplace(String upsertJob, long elapsedSeconds)
      throws IOException, InterruptedException {
    List<String> hosts = probe.taskManagersOf(upsertJob);
    List<JvmProcess> running = cluster.runningTaskManagers();
    JvmProcess victim = running.get(running.size() - 1);
    int spared = kills.isEmpty() ? 0 : 1;
    for (int i = running.size() - 1; i >= spared; i--) {
      if (hosts.contains(running.get(i).name())) {
        victim = running.get(i);
        break;
      }
    }
    String line =
        String.format(
            "[%5ds] kill -9 %s (pid %d), running %s",
            elapsedSeconds, victim.name(), victim.pid(), hosts);
    out.println(line);
    kills.add(line);
    killSeconds.add(elapsedSeconds);
    cluster.killTaskManager(victim);
    cluster.startTaskManager();
    List<JvmProcess> now = cluster.runningTaskManagers();
    JvmProcess started = now.get(now.size() - 1);
    taskManagerStarts.put(started.name(), System.currentTimeMillis());
    out.printf("[%5ds] %s registered%n", elapsedSeconds, started.name());
  }

  /** Waits until the copy holds exactly the upsert table's rows. */
  private void awaitCopyCaughtUp(TableProbe upsert, TableProbe copy, String copyJob)
      throws InterruptedException {
    Map<Long, List<Object>> source = Changelog.tableRows(upsert.localUri(), Map.of());
    long start = System.currentTimeMillis();
    Await.until(
        "the streaming copy to catch up with the upsert table",
        SETTLE_TIMEOUT,
        () -> {
          if (failed(copyJob)) {
            readerFailures.put("copy", rootCause(copyJob));
            return true;
          }
          return copy.exists() && Changelog.tableRows(copy.localUri(), Map.of()).equals(source);
        },
        () -> rest.jobStatus(copyJob));
    out.printf(
        "the copy caught up %d s after the writers finished%n",
        (System.currentTimeMillis() - start) / 1000);
  }

  private List<Check> checks(
      Map<String, TableProbe> tables,
      TableProbe lookups,
      Map<String, String> jobs,
      PlainReader reader) {
    List<Check> checks = new ArrayList<>();
    long rows = config.appendRows();
    List<List<Object>> appended =
        LanceTestTables.readColumns(
            tables.get("append").localUri(), Map.of(), List.of("id", "payload"));
    List<Long> ids = appended.stream().map(r -> (Long) r.get(0)).sorted().toList();
    long badPayloads =
        appended.stream().filter(r -> !r.get(1).toString().equals("row-" + r.get(0))).count();
    checks.add(
        new Check(
            "append table equals its reference model",
            ids.equals(LongStream.range(0, rows).boxed().toList()) && badPayloads == 0,
            ids.size()
                + " rows, expected ids 0.."
                + (rows - 1)
                + ", "
                + badPayloads
                + " wrong payloads"));
    Map<Long, List<Object>> model =
        UpsertChangelogJob.changelog(config.upsertChanges(), config.keys()).model();
    Map<Long, List<Object>> upserted =
        Changelog.tableRows(tables.get("upsert").localUri(), Map.of());
    checks.add(
        new Check(
            "upsert table equals its reference model",
            upserted.equals(model),
            upserted.size() + " keys, model " + model.size()));
    if (readerFailures.containsKey("copy")) {
      checks.add(
          new Check(
              "streaming copy equals the upsert table",
              false,
              "the copy job failed: " + readerFailures.get("copy")));
    } else {
      Map<Long, List<Object>> copied = Changelog.tableRows(tables.get("copy").localUri(), Map.of());
      checks.add(
          new Check(
              "streaming copy equals the upsert table",
              copied.equals(upserted),
              copied.size() + " keys, source " + upserted.size()));
    }
    checks.add(
        readerFailures.containsKey("lookup")
            ? new Check(
                "lookup join: every probe once, every row found one the changelog wrote for its key",
                false,
                "the lookup job failed: " + readerFailures.get("lookup"))
            : lookupCheck(lookups));

    for (TableProbe table : tables.values()) {
      checks.addAll(tableChecks(table, maxRows(table.name())));
    }
    checks.add(
        new Check(
            "the plain reader never failed",
            reader.allFailures().isEmpty(),
            reader.allFailures().isEmpty() ? "no failure" : reader.allFailures().toString()));
    checks.add(memoryCheck());
    checks.add(
        new Check(
            "TaskManagers killed",
            config.duration().compareTo(config.killEvery().plusSeconds(30)) < 0 || !kills.isEmpty(),
            kills.size()
                + " kills; failovers: append "
                + probe.failovers(jobs.get("append"))
                + ", upsert "
                + probe.failovers(jobs.get("upsert"))
                + ", copy "
                + probe.failovers(jobs.get("copy"))));
    return checks;
  }

  /**
   * Every probe of the lookup join once in its result table, and every row it found a row the
   * changelog wrote for that key (which one depends on when the lookup ran; a miss is a key deleted
   * or not yet inserted then).
   */
  private Check lookupCheck(TableProbe lookups) {
    Changelog changelog = UpsertChangelogJob.changelog(config.upsertChanges(), config.keys());
    List<List<Object>> rows =
        LanceTestTables.readColumns(
            lookups.localUri(), Map.of(), List.of("probe", "k", "name", "version"));
    List<Long> probes = rows.stream().map(r -> (Long) r.get(0)).sorted().toList();
    long hits = 0;
    List<List<Object>> wrong = new ArrayList<>();
    for (List<Object> row : rows) {
      long probe = (Long) row.get(0);
      Object name = row.get(2) == null ? null : row.get(2).toString();
      Long version = (Long) row.get(3);
      boolean genuine;
      if (version == null) {
        genuine = name == null;
      } else {
        hits++;
        RowData change = changelog.change(version);
        genuine =
            change.getLong(0) == probe % config.keys()
                && (change.getRowKind() == RowKind.INSERT
                    || change.getRowKind() == RowKind.UPDATE_AFTER)
                && java.util.Objects.equals(
                    name, change.isNullAt(1) ? null : change.getString(1).toString());
      }
      if (!genuine || (Long) row.get(1) != probe % config.keys()) {
        wrong.add(row);
      }
    }
    return new Check(
        "lookup join: every probe once, every row found one the changelog wrote for its key",
        probes.equals(LongStream.range(0, config.lookups()).boxed().toList()) && wrong.isEmpty(),
        String.format(
            "%d result rows for %d probes, %d hits, %d rows not written for their key%s",
            rows.size(),
            config.lookups(),
            hits,
            wrong.size(),
            wrong.isEmpty() ? "" : ": " + wrong.subList(0, Math.min(5, wrong.size()))));
  }

  /**
   * Files and versions of one table against the cleanup policy; fragments against the compaction
   * policy: at most the full fragments its rows fill plus three rounds of small ones (the trigger's
   * count, the ones a running compaction is rewriting, the ones committed meanwhile).
   */
  private List<Check> tableChecks(TableProbe table, long maxRows) {
    List<Check> checks = new ArrayList<>();
    long lastCompaction = table.lastCompactionMillis();
    long cutoff = lastCompaction - config.cleanupOlderThan().toMillis() - CLEANUP_SLACK.toMillis();
    List<TableProbe.Leftover> leftovers = table.leftovers();
    List<TableProbe.Leftover> uncleaned =
        leftovers.stream()
            .filter(l -> l.everReferenced() && l.unreferencedSinceMillis() < cutoff)
            .toList();
    List<TableProbe.Leftover> orphans =
        leftovers.stream().filter(l -> !l.everReferenced()).toList();
    checks.add(
        new Check(
            table.name() + ": no data file left that cleanup should have removed",
            lastCompaction > 0 && uncleaned.isEmpty(),
            String.format(
                "%d files unreferenced by every kept version: %d of them unreferenced before the"
                    + " GC window (last compaction %s minus cleanup-older-than %s minus %s), %d"
                    + " in it; %d never referenced by any version seen (%d KB: files of"
                    + " checkpoints or rewrites a kill cut short, which Lance's cleanup keeps as"
                    + " 'unverified' for 7 days; %d versions were cleaned up before the probe read"
                    + " them) %s",
                leftovers.size(),
                uncleaned.size(),
                lastCompaction > 0 ? java.time.Instant.ofEpochMilli(lastCompaction) : "never",
                config.cleanupOlderThan(),
                CLEANUP_SLACK,
                leftovers.size() - uncleaned.size() - orphans.size(),
                orphans.size(),
                orphans.stream().mapToLong(TableProbe.Leftover::bytes).sum() / 1024,
                table.versionsMissed(),
                uncleaned.isEmpty() ? "" : uncleaned)));
    List<TableProbe.Kept> kept = table.keptVersions();
    // a registered streaming read keeps its version and all later ones, whatever their age
    long registered = table.oldestRegisteredVersion().orElse(Long.MAX_VALUE);
    List<TableProbe.Kept> older =
        kept.subList(0, kept.size() - 1).stream().filter(k -> k.millis() < cutoff).toList();
    long tooOld = older.stream().filter(k -> k.version() < registered).count();
    checks.add(
        new Check(
            table.name() + ": versions kept within the cleanup window",
            lastCompaction > 0 && tooOld == 0,
            String.format(
                "%d versions kept, %d older than the window%s",
                kept.size(),
                tooOld,
                registered == Long.MAX_VALUE
                    ? ""
                    : String.format(
                        " (%d more kept for a streaming read registered from version %d)",
                        older.size() - tooOld, registered))));
    TableProbe.Shape shape = table.sample();
    long bound =
        (maxRows + config.targetRowsPerFragment() - 1) / config.targetRowsPerFragment()
            + 3L * config.smallFragments();
    checks.add(
        new Check(
            table.name() + ": fragments bounded by the compaction policy",
            shape.fragments() <= bound,
            shape.fragments()
                + " fragments, bound "
                + bound
                + "; manifest "
                + shape.manifestBytes() / 1024
                + " KB"));
    return checks;
  }

  /** The most rows a table of the run can hold, for its fragment bound. */
  private long maxRows(String table) {
    return switch (table) {
      case "append" -> config.appendRows();
      case "lookups" -> config.lookups();
      default -> config.keys();
    };
  }

  /** The RSS slope of the TaskManager watched longest after its warm-up, by least squares. */
  private Check memoryCheck() {
    Map<String, List<MemorySample>> byTm =
        memory.stream()
            .filter(
                s ->
                    s.hours() * 3_600_000
                        >= config.warmUp().toMillis() + (s.startedAtMillis() - firstStart()))
            .collect(Collectors.groupingBy(MemorySample::taskManager));
    List<MemorySample> longest =
        byTm.values().stream()
            .max(java.util.Comparator.comparingDouble(SoakRun::span))
            .orElse(List.of());
    if (longest.size() < 3) {
      return new Check("TaskManager RSS flat after warm-up", true, "too few samples to judge");
    }
    double slope = slope(longest);
    double minutes = span(longest) * 60;
    String detail =
        String.format(
            "%s: %.1f MB/h over %.1f min after a %s warm-up (RSS %.0f -> %.0f MB); flat means"
                + " <= %.0f MB/h over >= %d min",
            longest.get(0).taskManager(),
            slope,
            minutes,
            config.warmUp(),
            longest.get(0).mb(),
            longest.get(longest.size() - 1).mb(),
            SoakConfig.FLAT_MB_PER_HOUR,
            SoakConfig.MIN_SLOPE_WINDOW.toMinutes());
    if (minutes < SoakConfig.MIN_SLOPE_WINDOW.toMinutes()) {
      return new Check("TaskManager RSS flat after warm-up", true, "not judged, " + detail);
    }
    return new Check(
        "TaskManager RSS flat after warm-up", slope <= SoakConfig.FLAT_MB_PER_HOUR, detail);
  }

  private long firstStart() {
    return taskManagerStarts.values().stream().mapToLong(Long::longValue).min().orElse(0);
  }

  private static double span(List<MemorySample> samples) {
    return samples.get(samples.size() - 1).hours() - samples.get(0).hours();
  }

  private static double slope(List<MemorySample> samples) {
    double n = samples.size();
    double meanX = samples.stream().mapToDouble(MemorySample::hours).sum() / n;
    double meanY = samples.stream().mapToDouble(MemorySample::mb).sum() / n;
    double covariance = 0;
    double variance = 0;
    for (MemorySample s : samples) {
      covariance += (s.hours() - meanX) * (s.mb() - meanY);
      variance += (s.hours() - meanX) * (s.hours() - meanX);
    }
    return variance == 0 ? 0 : covariance / variance;
  }

  private static String column(
      Map<String, TableProbe.Shape> shapes,
      java.util.function.Function<TableProbe.Shape, String> value) {
    return shapes.values().stream().map(value).collect(Collectors.joining(" ", "[", "]"));
  }

  private static String text(OptionalLong value) {
    return value.isPresent() ? Long.toString(value.getAsLong()) : "-";
  }

  /** The innermost cause of the job's last failure, with its message. */
  private String rootCause(String job) {
    try {
      JsonNode root = rest.get("jobs/" + job + "/exceptions").path("exceptionHistory");
      JsonNode entries = root.path("entries");
      if (entries.isEmpty()) {
        return rest.jobStatus(job);
      }
      List<String> causes =
          entries
              .get(0)
              .path("stacktrace")
              .asText()
              .lines()
              .filter(l -> l.startsWith("Caused by: ") || !l.startsWith("\t"))
              .toList();
      return causes.isEmpty() ? "(no stack trace)" : causes.get(causes.size() - 1);
    } catch (RuntimeException e) {
      return "(" + e + ")";
    }
  }

  private static long elapsedSeconds(long start) {
    return (System.currentTimeMillis() - start) / 1000;
  }

  private boolean finished(String job) {
    return rest.jobStatus(job).equals("FINISHED");
  }

  private boolean failed(String job) {
    String status = rest.jobStatus(job);
    return status.equals("FAILED") || status.equals("CANCELED");
  }

  private void cancel(String job) {
    try {
      if (!rest.jobStatus(job).equals("CANCELED")) {
        rest.cancel(job);
      }
    } catch (RuntimeException e) {
      out.println("could not cancel " + job + ": " + e);
    }
  }
}
