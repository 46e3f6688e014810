package dev.flinklance.sink.bench;

import dev.flinklance.access.LanceDatasetOptions;
import dev.flinklance.arrow.ArrowSchemaConverter;
import dev.flinklance.arrow.ColumnCompression;
import dev.flinklance.arrow.Compression;
import dev.flinklance.sink.LanceSink;
import dev.flinklance.sink.LanceSinkBuilder;
import dev.flinklance.sink.LanceSinkConfig;
import dev.flinklance.testing.BenchRows;
import dev.flinklance.testing.Spread;
import dev.flinklance.testing.TableMetrics;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.lance.Dataset;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/**
 * The write path against its limits, in one JVM and one run: narrow event rows and wide vector rows
 * through {@link LanceSink}, the same Flink job into a {@code DiscardingSink} (Flink's own cost),
 * raw lance-core streaming the same rows into one fragment (the strongest raw write we know), and
 * for wide rows the disk (the same bytes through a {@link FileChannel}, forced). Every measurement
 * runs once per round, in turn, so that background load spreads over all of them; the printout is
 * the median with min and max, page faults per job, bytes per row on disk, and ratios of the
 * rounds. Then the writer's memory against {@code sink.max-buffer-size}, a full scan of the tables,
 * the fragments of a checkpointing job, and the committer's cost against table history. Prints;
 * asserts nothing.
 *
 * <p>Run with {@code bin/bench [narrow-rows=10000000] [wide-rows=300000] [repetitions=5]
 * [parts=narrow,wide,committer]}.
 */
public final class SinkBenchmark {
  private static final long BUFFER_BYTES = MemorySize.ofMebiBytes(64).getBytes();
  private static final String CONVERSION_ALONE =
      "RowData to Arrow alone (ArrowBatchWriter, thread CPU)";
  private static final String HANDWRITTEN =
      "RowData to Arrow by code for this schema only (thread CPU)";
  private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();
  private static final String SINK_JOB = "Flink job into LanceSink";
  private static final String RAW_AHEAD = "raw lance-core, one stream, generated ahead on a thread";
  private static final String RAW_ON_LANCE =
      "raw lance-core, one stream, generated on Lance's thread";
  private static final String DISCARDING_JOB = "Flink job into a DiscardingSink";
  private static final String RAW_COMPRESSED = "raw lance-core, generated ahead, compression ";

  /** The zstd level past which narrow rows hardly shrink (docs/benchmark.md). */
  private static final int SMALLEST_LEVEL = 6;

  private static final String SINK_ZSTD_6 =
      "Flink job into LanceSink, sink.compression ZSTD, level " + SMALLEST_LEVEL;

  /** The file format the sink creates a table with compressed columns in. */
  private static final String COMPRESSED_FORMAT =
      ArrowSchemaConverter.storageVersionFor(narrowSchema(Compression.ZSTD), null);

  private static final int WIDE_ROW_BYTES = 8 + 12 + 8 + BenchRows.DIMENSION * 4;

  private final Path work;
  private int tables;

  private SinkBenchmark(Path work) {
    this.work = work;
  }

  public static void main(String[] args) throws Exception {
    long narrowRows = args.length > 0 ? Long.parseLong(args[0]) : 10_000_000;
    long wideRows = args.length > 1 ? Long.parseLong(args[1]) : 300_000;
    int repetitions = args.length > 2 ? Integer.parseInt(args[2]) : 5;
    List<String> parts = List.of((args.length > 3 ? args[3] : "narrow,wide,committer").split(","));
    Path work = Files.createTempDirectory("flink-lance-bench");
    Configuration config = REPORTER.addToConfiguration(new Configuration());
    try (MiniCluster cluster =
        new MiniCluster(
            new MiniClusterConfiguration.Builder()
                .setConfiguration(config)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(2)
                .build())) {
      cluster.start();
      TestStreamEnvironment.setAsContext(cluster, 1);
      SinkBenchmark bench = new SinkBenchmark(work);
      System.out.printf(
          "flink-lance sink benchmark: %d repetitions, interleaved; median (min-max); %d"
              + " processors, Java %s%n",
          repetitions, Runtime.getRuntime().availableProcessors(), Runtime.version());
      if (parts.contains("narrow")) {
        bench.narrow(narrowRows, repetitions);
      }
      if (parts.contains("wide")) {
        bench.wide(wideRows, repetitions);
      }
      if (parts.contains("committer")) {
        bench.committerCostByHistory();
      }
    } finally {
      TestStreamEnvironment.unsetAsContext();
      deleteRecursively(work);
    }
  }

  // ---------------------------------------------------------------- narrow rows

  private void narrow(long rows, int repetitions) throws Exception {
    String format = defaultFormat();
    System.out.printf(
        "%nnarrow rows: %,d rows of (id BIGINT, ts TIMESTAMP(3), user_id INT, action STRING, value"
            + " DOUBLE), file format %s (compressed: %s, as the sink creates them), parallelism 1,"
            + " object reuse on%n",
        rows, format, COMPRESSED_FORMAT);
    int rawBatch = (int) (MemorySize.ofMebiBytes(16).getBytes() / 40);
    Rounds rounds = new Rounds(rows, NarrowRows.ROW_BYTES);
    rounds.add(
        RAW_ON_LANCE,
        uri ->
            RawLance.write(
                uri, NarrowRows.ARROW_SCHEMA, format, rows, rawBatch, NarrowRows::fill, false));
    rounds.add(
        RAW_AHEAD,
        uri ->
            RawLance.write(
                uri, NarrowRows.ARROW_SCHEMA, format, rows, rawBatch, NarrowRows::fill, true));
    for (Compression compression : List.of(Compression.LZ4, Compression.ZSTD)) {
      Schema compressed = narrowSchema(compression);
      rounds.add(
          RAW_COMPRESSED + compression,
          uri ->
              RawLance.write(
                  uri, compressed, COMPRESSED_FORMAT, rows, rawBatch, NarrowRows::fill, true));
    }
    Schema zstd = narrowSchema(Compression.ZSTD);
    String rawZstdInDefaultFormat = RAW_COMPRESSED + "ZSTD, file format " + format;
    rounds.add(
        rawZstdInDefaultFormat,
        uri -> RawLance.write(uri, zstd, format, rows, rawBatch, NarrowRows::fill, true));
    rounds.add(DISCARDING_JOB, uri -> job(narrowJob(rows, new DiscardingSink<>())));
    rounds.add(CONVERSION_ALONE, uri -> ConversionAlone.rate(rows, BUFFER_BYTES));
    rounds.add(HANDWRITTEN, uri -> HandwrittenConversion.rate(rows));
    for (Compression compression : Compression.values()) {
      rounds.add(
          sinkJob(compression), uri -> narrowSink(uri, rows, b -> b.compression(compression)));
      rounds.keepLast(sinkJob(compression));
    }
    rounds.add(
        SINK_ZSTD_6,
        uri ->
            narrowSink(
                uri, rows, b -> b.compression(Compression.ZSTD).compressionLevel(SMALLEST_LEVEL)));
    rounds.run(repetitions, this::narrowWarmUp);

    Spread discard = rounds.rate(DISCARDING_JOB);
    Spread sink = rounds.rate(SINK_JOB);
    String raw = rounds.fastest("raw lance-core, one stream");
    System.out.printf(
        "  sink / DiscardingSink job: %s   (goal >= 0.85)%n", sink.ratioTo(discard).format("%.2f"));
    System.out.printf(
        "  sink / raw (%s): %s   (goal >= 0.6)%n",
        variant(raw), sink.ratioTo(rounds.rate(raw)).format("%.2f"));
    System.out.printf(
        "  DiscardingSink job / raw: %s (Flink's own per-record cost)%n",
        discard.ratioTo(rounds.rate(raw)).format("%.2f"));
    double flinkNanos = 1e9 / discard.median();
    System.out.printf(
        "  per row: the DiscardingSink job %.0f ns, the sink's job %.0f ns, the conversion alone"
            + " %.0f ns of CPU (by code for this schema only %.0f ns); sink / DiscardingSink job"
            + " >= 0.85 leaves the sink %.0f ns a row%n",
        flinkNanos,
        1e9 / sink.median(),
        1e9 / rounds.rate(CONVERSION_ALONE).median(),
        1e9 / rounds.rate(HANDWRITTEN).median(),
        flinkNanos * (1 / 0.85 - 1));
    printCpuBound(rounds, raw);
    System.out.printf(
        "  writer Arrow peak: %.1f MB with sink.max-buffer-size %.1f MB%n",
        rounds.writerPeak / 1e6, BUFFER_BYTES / 1e6);
    printCompressionCost(rounds, format, rawZstdInDefaultFormat);
  }

  /**
   * What the machine allows the sink's job at best: it does the DiscardingSink job's work and raw
   * lance-core's (rows into Arrow, then encoded and written), so it takes at least as long as the
   * slower of the two, and at least their CPU spread over every core.
   */
  private static void printCpuBound(Rounds rounds, String raw) {
    int cores = Runtime.getRuntime().availableProcessors();
    double discardNanos = 1e9 / rounds.rate(DISCARDING_JOB).median();
    double rawNanos = 1e9 / rounds.rate(raw).median();
    double discardCpu = rounds.cpuPerRow(DISCARDING_JOB).median();
    double rawCpu = rounds.cpuPerRow(RAW_ON_LANCE).median();
    double spread = (discardCpu + rawCpu) / cores;
    double best = Math.max(Math.max(discardNanos, rawNanos), spread);
    System.out.printf(
        "  CPU bound: the DiscardingSink job %.0f ns of CPU a row, raw lance-core (%s) %.0f ns,"
            + " over %d cores at least %.0f ns a row; with the two jobs' own %.0f and %.0f ns, the"
            + " sink's job takes at least %.0f ns a row: sink / DiscardingSink job at most %.2f%n",
        discardCpu,
        variant(RAW_ON_LANCE),
        rawCpu,
        cores,
        spread,
        discardNanos,
        rawNanos,
        best,
        discardNanos / best);
    System.out.printf(
        "  the sink's job: %.0f ns of CPU a row against %.0f for the two jobs' work%n",
        rounds.cpuPerRow(SINK_JOB).median(), discardCpu + rawCpu);
  }

  /** "one stream, generated ahead on a thread" of a raw measurement's name. */
  private static String variant(String raw) {
    return raw.substring(raw.indexOf(',') + 2);
  }

  /** The narrow rows' Arrow schema with every column {@code compression}. */
  private static Schema narrowSchema(Compression compression) {
    return new ColumnCompression(compression, null, Map.of()).applyTo(NarrowRows.ARROW_SCHEMA);
  }

  /** The sink's job with {@code compression}: the default's is the sink's job of the printout. */
  private static String sinkJob(Compression compression) {
    return compression == LanceDatasetOptions.SINK_COMPRESSION.defaultValue()
        ? SINK_JOB
        : SINK_JOB + ", sink.compression " + compression;
  }

  /**
   * Write speed, bytes and full-scan speed (every column, one thread, the last round's table) of
   * each compression against none, measured in the same rounds.
   */
  private static void printCompressionCost(
      Rounds rounds, String defaultFormat, String rawZstdInDefaultFormat) throws Exception {
    Map<Compression, Spread> scans = new LinkedHashMap<>();
    for (Compression compression : Compression.values()) {
      scans.put(compression, new Spread());
      scan(rounds.kept(sinkJob(compression)));
    }
    for (int i = 0; i < 3; i++) {
      for (Compression compression : Compression.values()) {
        scans.get(compression).add(scan(rounds.kept(sinkJob(compression))));
      }
    }
    System.out.printf(
        "  full scan, one thread, of sink.compression NONE's table: %s rows/s%n",
        scans.get(Compression.NONE).format("%,.0f"));
    String none = sinkJob(Compression.NONE);
    for (Compression compression : List.of(Compression.LZ4, Compression.ZSTD)) {
      String name = sinkJob(compression);
      System.out.printf(
          "  sink.compression %s / NONE: sink write %s, raw write %s, bytes on disk %.2f, full"
              + " scan %s%n",
          compression,
          rounds.rate(name).ratioTo(rounds.rate(none)).format("%.2f"),
          rounds.rate(RAW_COMPRESSED + compression).ratioTo(rounds.rate(RAW_AHEAD)).format("%.2f"),
          rounds.bytesPerRow(name).median() / rounds.bytesPerRow(none).median(),
          scans.get(compression).ratioTo(scans.get(Compression.NONE)).format("%.2f"));
    }
    System.out.printf(
        "  file format %s against %s, both ZSTD: raw write %s, bytes on disk %.2f%n",
        COMPRESSED_FORMAT,
        defaultFormat,
        rounds
            .rate(RAW_COMPRESSED + Compression.ZSTD)
            .ratioTo(rounds.rate(rawZstdInDefaultFormat))
            .format("%.2f"),
        rounds.bytesPerRow(RAW_COMPRESSED + Compression.ZSTD).median()
            / rounds.bytesPerRow(rawZstdInDefaultFormat).median());
    System.out.printf(
        "  sink.compression ZSTD, level %d / level Lance's own: sink write %s, bytes on disk %.2f"
            + " (%.2f bytes a row)%n",
        SMALLEST_LEVEL,
        rounds.rate(SINK_ZSTD_6).ratioTo(rounds.rate(sinkJob(Compression.ZSTD))).format("%.2f"),
        rounds.bytesPerRow(SINK_ZSTD_6).median()
            / rounds.bytesPerRow(sinkJob(Compression.ZSTD)).median(),
        rounds.bytesPerRow(SINK_ZSTD_6).median());
    for (Compression compression : Compression.values()) {
      deleteRecursively(Path.of(rounds.kept(sinkJob(compression))));
    }
  }

  /** Long enough that the JIT has compiled the per-row paths before the first round. */
  private void narrowWarmUp() throws Exception {
    String uri = newTable();
    narrowSink(uri, 1_000_000, b -> {});
    deleteRecursively(Path.of(uri));
    job(narrowJob(1_000_000, new DiscardingSink<>()));
    ConversionAlone.rate(1_000_000, BUFFER_BYTES);
    HandwrittenConversion.rate(1_000_000);
  }

  private JobExecutionResult narrowSink(
      String uri, long rows, Consumer<LanceSinkBuilder<RowData>> options) throws Exception {
    LanceSinkBuilder<RowData> builder =
        LanceSink.forRowData(NarrowRows.ROW_TYPE).path(uri).maxBufferBytes(BUFFER_BYTES);
    options.accept(builder);
    return job(narrowJob(rows, builder.build()));
  }

  private static StreamExecutionEnvironment narrowJob(long rows, Sink<RowData> sink) {
    return jobInto(rows, NarrowRows::row, NarrowRows.ROW_TYPE, sink, 1, 0);
  }

  // ---------------------------------------------------------------- wide rows

  private void wide(long rows, int repetitions) throws Exception {
    String format = defaultFormat();
    System.out.printf(
        "%nwide rows: %,d rows of (id BIGINT, category STRING, score DOUBLE, %d-dim float vector),"
            + " about %,d bytes a row, file format %s, parallelism 1, object reuse on%n",
        rows, BenchRows.DIMENSION, WIDE_ROW_BYTES, format);
    Rounds rounds = new Rounds(rows, WIDE_ROW_BYTES);
    long[] diskBytes = {rows * WIDE_ROW_BYTES};
    rounds.add(
        "disk: the sink's bytes through a FileChannel, forced",
        uri -> disk(uri, diskBytes[0], rows));
    for (int mebibytes : new int[] {8, 16}) {
      int batchRows = (int) (MemorySize.ofMebiBytes(mebibytes).getBytes() / WIDE_ROW_BYTES);
      rounds.add(
          "raw lance-core, one stream of " + mebibytes + " MiB batches",
          uri ->
              RawLance.write(
                  uri, BenchRows.ARROW_SCHEMA, format, rows, batchRows, BenchRows::fill, false));
    }
    rounds.add(
        "raw lance-core, one stream of 16 MiB batches generated ahead",
        uri -> {
          int batchRows = (int) (MemorySize.ofMebiBytes(16).getBytes() / WIDE_ROW_BYTES);
          return RawLance.write(
              uri, BenchRows.ARROW_SCHEMA, format, rows, batchRows, BenchRows::fill, true);
        });
    rounds.add(
        "Flink job into LanceSink",
        uri -> {
          JobExecutionResult result = wideSink(uri, rows, 1, 0);
          diskBytes[0] = dataBytes(uri);
          return result;
        });
    String vectorsCompressed = SINK_JOB + ", every column ZSTD, the vector's too";
    rounds.add(
        vectorsCompressed,
        uri ->
            wideSink(
                uri,
                rows,
                1,
                0,
                b ->
                    b.compression(Compression.ZSTD)
                        .columnCompression("embedding", Compression.ZSTD)));
    rounds.keepLast("Flink job into LanceSink");
    rounds.keepLast("raw lance-core, one stream of 16 MiB batches");
    rounds.run(repetitions, this::wideWarmUp);

    Spread sink = rounds.rate("Flink job into LanceSink");
    String raw = rounds.fastest("raw lance-core");
    System.out.printf(
        "  sink / raw (%s): %s   (goal >= 0.9)%n",
        variant(raw), sink.ratioTo(rounds.rate(raw)).format("%.2f"));
    System.out.printf(
        "  sink / disk: %s%n",
        sink.ratioTo(rounds.rate("disk: the sink's bytes through a FileChannel, forced"))
            .format("%.2f"));
    System.out.printf(
        "  writer Arrow peak: %.1f MB with sink.max-buffer-size %.1f MB%n",
        rounds.writerPeak / 1e6, BUFFER_BYTES / 1e6);
    System.out.printf(
        "  every column ZSTD / the sink's default: speed %s, bytes on disk %.2f%n",
        rounds.rate(vectorsCompressed).ratioTo(sink).format("%.2f"),
        rounds.bytesPerRow(vectorsCompressed).median() / rounds.bytesPerRow(SINK_JOB).median());
    scanBothTables(
        rounds.kept("raw lance-core, one stream of 16 MiB batches"),
        rounds.kept("Flink job into LanceSink"));
    fragmentsPerCheckpoint(rows);
  }

  private void wideWarmUp() throws Exception {
    String uri = newTable();
    wideSink(uri, 10_000, 1, 0);
    deleteRecursively(Path.of(uri));
  }

  /**
   * @param checkpointMillis checkpoint interval, 0 for none
   */
  private JobExecutionResult wideSink(String uri, long rows, int parallelism, long checkpointMillis)
      throws Exception {
    return wideSink(uri, rows, parallelism, checkpointMillis, b -> {});
  }

  private JobExecutionResult wideSink(
      String uri,
      long rows,
      int parallelism,
      long checkpointMillis,
      Consumer<LanceSinkBuilder<RowData>> options)
      throws Exception {
    LanceSinkBuilder<RowData> builder =
        LanceSink.forRowData(BenchRows.ROW_TYPE)
            .path(uri)
            .vectorColumn("embedding", BenchRows.DIMENSION)
            .maxBufferBytes(BUFFER_BYTES);
    options.accept(builder);
    return job(
        jobInto(
            rows,
            BenchRows::row,
            BenchRows.ROW_TYPE,
            builder.build(),
            parallelism,
            checkpointMillis));
  }

  /**
   * The disk's limit: {@code bytes} written through a FileChannel in 8 MiB writes, then forced.
   *
   * @return the rows per second these bytes hold
   */
  private static double disk(String uri, long bytes, long rows) throws IOException {
    Path file = Path.of(uri + ".bin");
    ByteBuffer chunk = ByteBuffer.allocateDirect(8 << 20);
    byte[] noise = new byte[chunk.capacity()];
    new Random(42).nextBytes(noise);
    chunk.put(noise).flip();
    long start = System.nanoTime();
    try (FileChannel channel =
        FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      for (long written = 0; written < bytes; ) {
        chunk.rewind();
        chunk.limit((int) Math.min(chunk.capacity(), bytes - written));
        while (chunk.hasRemaining()) {
          written += channel.write(chunk);
        }
      }
      channel.force(true);
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    Files.delete(file);
    return rows / seconds;
  }

  // ---------------------------------------------------------------- jobs

  private static StreamExecutionEnvironment jobInto(
      long rows,
      GeneratorFunction<Long, RowData> generator,
      RowType type,
      Sink<RowData> sink,
      int parallelism,
      long checkpointMillis) {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(parallelism);
    if (checkpointMillis > 0) {
      env.enableCheckpointing(checkpointMillis);
    }
    // The sink copies each record into Arrow at once, so it is safe with object reuse, which
    // spares Flink's defensive copy of every record between chained operators.
    env.getConfig().enableObjectReuse();
    env.fromSource(
            new DataGeneratorSource<>(
                generator, rows, RateLimiterStrategy.noOp(), InternalTypeInfo.of(type)),
            WatermarkStrategy.noWatermarks(),
            "rows")
        .sinkTo(sink);
    return env;
  }

  private static JobExecutionResult job(StreamExecutionEnvironment env) throws Exception {
    return env.execute("bench");
  }

  // ---------------------------------------------------------------- rounds

  /** A measurement: a job (its net runtime counts) or a timed write returning rows per second. */
  @FunctionalInterface
  private interface Measured {
    Object run(String uri) throws Exception;
  }

  /** Interleaved repetitions of named measurements, with page faults and bytes on disk. */
  private final class Rounds {
    private final long rows;
    private final int rowBytes;
    private final Map<String, Measured> measurements = new LinkedHashMap<>();
    private final Map<String, Spread> rates = new LinkedHashMap<>();
    private final Map<String, Spread> faults = new LinkedHashMap<>();
    private final Map<String, Spread> cpuPerRow = new LinkedHashMap<>();
    private final Map<String, Spread> bytesPerRow = new LinkedHashMap<>();
    private final Map<String, String> kept = new LinkedHashMap<>();
    long writerPeak;

    Rounds(long rows, int rowBytes) {
      this.rows = rows;
      this.rowBytes = rowBytes;
    }

    void add(String name, Measured measured) {
      measurements.put(name, measured);
      rates.put(name, new Spread());
      faults.put(name, new Spread());
      cpuPerRow.put(name, new Spread());
      bytesPerRow.put(name, new Spread());
    }

    /** Keeps the table of the last repetition of {@code name} for later reads. */
    void keepLast(String name) {
      kept.put(name, null);
    }

    String kept(String name) {
      return kept.get(name);
    }

    void run(int repetitions, WarmUp warmUp) throws Exception {
      warmUp.run();
      for (int round = 0; round < repetitions; round++) {
        for (Map.Entry<String, Measured> measurement : measurements.entrySet()) {
          String name = measurement.getKey();
          String uri = newTable();
          System.gc();
          long faultsBefore = PageFaults.sofar();
          long cpuBefore = ProcessCpu.sofar();
          Object result = measurement.getValue().run(uri);
          long cpuAfter = ProcessCpu.sofar();
          long faultsAfter = PageFaults.sofar();
          double rate;
          if (result instanceof JobExecutionResult job) {
            rate = rows / (job.getNetRuntime() / 1000.0);
            writerPeak = Math.max(writerPeak, writerPeakBytes(job.getJobID(), uri));
          } else {
            rate = (Double) result;
          }
          rates.get(name).add(rate);
          faults.get(name).add(faultsAfter - faultsBefore);
          cpuPerRow.get(name).add((cpuAfter - cpuBefore) / (double) rows);
          if (Files.isDirectory(Path.of(uri))) {
            bytesPerRow.get(name).add(dataBytes(uri) / (double) rows);
            if (kept.containsKey(name) && round == repetitions - 1) {
              kept.put(name, uri);
            } else {
              deleteRecursively(Path.of(uri));
            }
          }
        }
      }
      print();
    }

    private void print() {
      int width = measurements.keySet().stream().mapToInt(String::length).max().orElse(10);
      System.out.printf(
          "  %-" + width + "s  %-32s %-22s %-26s %-24s %s%n",
          "",
          "rows/s",
          "MB/s",
          "page faults per job",
          "CPU ns/row, all threads",
          "bytes/row on disk");
      for (String name : measurements.keySet()) {
        Spread rate = rates.get(name);
        System.out.printf(
            "  %-" + width + "s  %-32s %-22s %-26s %-24s %s%n",
            name,
            rate.format("%,.0f"),
            String.format(
                "%.0f (%.0f-%.0f)",
                rate.median() * rowBytes / 1e6,
                rate.min() * rowBytes / 1e6,
                rate.max() * rowBytes / 1e6),
            faults.get(name).format("%,.0f"),
            cpuPerRow.get(name).format("%,.0f"),
            bytesPerRow.get(name).isEmpty()
                ? ""
                : String.format("%.2f", bytesPerRow.get(name).median()));
      }
      // one throughput mode (issue 19): each sink job, so that a slow one shows with its faults
      for (String name : measurements.keySet()) {
        if (name.startsWith(SINK_JOB)) {
          List<Double> rowsPerSecond = rates.get(name).inOrder();
          List<Double> jobFaults = faults.get(name).inOrder();
          StringBuilder jobs = new StringBuilder();
          for (int i = 0; i < rowsPerSecond.size(); i++) {
            jobs.append(
                String.format(
                    " %.2f/%,.0f", rowsPerSecond.get(i) / rate(name).median(), jobFaults.get(i)));
          }
          System.out.printf("  each job (speed/median, page faults): %s:%s%n", name, jobs);
        }
      }
    }

    Spread rate(String name) {
      return rates.get(name);
    }

    Spread cpuPerRow(String name) {
      return cpuPerRow.get(name);
    }

    Spread bytesPerRow(String name) {
      return bytesPerRow.get(name);
    }

    /** The measurement whose name starts with {@code prefix} with the highest median rate. */
    String fastest(String prefix) {
      return rates.entrySet().stream()
          .filter(e -> e.getKey().startsWith(prefix))
          .max((a, b) -> Double.compare(a.getValue().median(), b.getValue().median()))
          .orElseThrow()
          .getKey();
    }
  }

  @FunctionalInterface
  private interface WarmUp {
    void run() throws Exception;
  }

  // ---------------------------------------------------------------- reads, fragments, committer

  /**
   * A full scan of the last repetition's tables (every column, one thread): the sink's table
   * against the raw baseline's.
   */
  private void scanBothTables(String raw, String sink) throws Exception {
    scan(raw);
    scan(sink);
    Spread rawRates = new Spread();
    Spread sinkRates = new Spread();
    for (int i = 0; i < 3; i++) {
      rawRates.add(scan(raw));
      sinkRates.add(scan(sink));
    }
    System.out.printf(
        "  full scan, one thread: raw lance-core's table (%d fragments) %,.0f rows/s, the sink's"
            + " (%d fragments) %,.0f rows/s; sink / raw %s%n",
        fragments(raw),
        rawRates.median(),
        fragments(sink),
        sinkRates.median(),
        sinkRates.ratioTo(rawRates).format("%.2f"));
  }

  private static double scan(String uri) throws Exception {
    long rows = 0;
    long start = System.nanoTime();
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open().allocator(allocator).uri(uri).build();
        LanceScanner scanner = dataset.newScan(new ScanOptions.Builder().build());
        ArrowReader reader = scanner.scanBatches()) {
      while (reader.loadNextBatch()) {
        rows += reader.getVectorSchemaRoot().getRowCount();
      }
    }
    return rows / ((System.nanoTime() - start) / 1e9);
  }

  private static int fragments(String uri) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open().allocator(allocator).uri(uri).build()) {
      return dataset.getFragments().size();
    }
  }

  /** A streaming job at parallelism 2 checkpointing every second: fragments per commit. */
  private void fragmentsPerCheckpoint(long rows) throws Exception {
    String uri = newTable();
    wideSink(uri, rows, 2, 1_000);
    int commits;
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open().allocator(allocator).uri(uri).build()) {
      commits = (int) dataset.version() - 1;
    }
    int fragments = fragments(uri);
    System.out.printf(
        "  checkpointing every 1 s at parallelism 2: %d commits, %d fragments: %.2f fragments per"
            + " checkpoint per writer%n",
        commits, fragments, fragments / (2.0 * commits));
    deleteRecursively(Path.of(uri));
  }

  private static long writerPeakBytes(JobID job, String uri) {
    return TableMetrics.of(REPORTER, job, uri).on("Writer").gauges("arrowPeakBytes").stream()
        .mapToLong(Long::longValue)
        .max()
        .orElse(0);
  }

  /**
   * Commits one small fragment per simulated checkpoint through the real committer and reports the
   * median commit time around version 10 and around version 1,000. A Lance commit rewrites the
   * manifest, whose size follows the fragment count, so the history effect is measured with
   * fragments kept bounded by compaction (what a production table runs with); the run without
   * compaction shows the fragment-count effect.
   */
  private void committerCostByHistory() throws Exception {
    System.out.printf("%ncommitter%n");
    commitTimes(200, 0);
    double[] compacted = commitTimes(1_000, 50);
    double[] accumulated = commitTimes(1_000, 0);
    System.out.printf(
        "  per checkpoint, compaction every 50 commits: %.2f ms at ~10 versions, %.2f ms at ~1,000"
            + " versions; ratio %.2f (target <= 1.5)%n",
        compacted[0], compacted[1], compacted[1] / compacted[0]);
    System.out.printf(
        "  per checkpoint, no compaction (1,000 fragments at the end): %.2f ms at ~10 versions,"
            + " %.2f ms at ~1,000 versions%n",
        accumulated[0], accumulated[1]);
  }

  /**
   * @param compactEvery compact the table (untimed) after this many commits; 0 never
   * @return median milliseconds of commits 2..21 and of the last 20
   */
  private double[] commitTimes(int commits, int compactEvery) throws Exception {
    Configuration conf = new Configuration();
    conf.set(LanceDatasetOptions.PATH, newTable());
    long[] nanos = new long[commits];
    try (CommitterProbe probe = new CommitterProbe(LanceSinkConfig.from(conf))) {
      for (int checkpoint = 1; checkpoint <= commits; checkpoint++) {
        nanos[checkpoint - 1] = probe.commitCheckpoint(checkpoint);
        if (compactEvery > 0 && checkpoint % compactEvery == 0) {
          probe.compact();
        }
      }
    }
    return new double[] {medianMillis(nanos, 1, 21), medianMillis(nanos, commits - 20, commits)};
  }

  private static double medianMillis(long[] nanos, int from, int to) {
    long[] window = Arrays.copyOfRange(nanos, from, to);
    Arrays.sort(window);
    return window[window.length / 2] / 1e6;
  }

  // ---------------------------------------------------------------- tables

  /** The file format Lance gives a table created without one (what the sink creates). */
  private String defaultFormat() {
    String uri = newTable();
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset =
            Dataset.write()
                .allocator(allocator)
                .uri(uri)
                .schema(NarrowRows.ARROW_SCHEMA)
                .mode(org.lance.WriteParams.WriteMode.CREATE)
                .execute()) {
      return dataset.getLanceFileFormatVersion();
    } finally {
      try {
        deleteRecursively(Path.of(uri));
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  /** Bytes of the table's data files. */
  private static long dataBytes(String uri) throws IOException {
    try (Stream<Path> files = Files.walk(Path.of(uri, "data"))) {
      return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
    }
  }

  private String newTable() {
    return work.resolve("t" + (tables++)).toString();
  }

  private static void deleteRecursively(Path path) throws IOException {
    if (!Files.exists(path)) {
      return;
    }
    try (Stream<Path> files = Files.walk(path)) {
      files.sorted((a, b) -> b.compareTo(a)).forEach(p -> p.toFile().delete());
    }
  }
}
