package dev.flinklance.compactor.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.access.TableRef;
import dev.flinklance.compactor.LanceCompactionJob;
import dev.flinklance.compactor.commit.CompactionSummary;
import dev.flinklance.compactor.lineage.SideFileSpill;
import dev.flinklance.compactor.testing.LineageTables;
import dev.flinklance.consumer.ConsumerRegistration;
import dev.flinklance.consumer.Consumers;
import dev.flinklance.files.TableFiles;
import dev.flinklance.testing.S3TestServer;
import dev.flinklance.testing.TestClusters;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lance.Dataset;
import org.lance.ReadOptions;
import org.lance.Version;

/**
 * One compaction with spill, then cleanup and side-file GC, on an s3:// table (S3Proxy, loopback).
 */
class S3CompactionITCase {
  @RegisterExtension static final S3TestServer S3 = new S3TestServer();
  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withFlinksRestarts();

  /** Also under a path that Lance's object store percent-encodes (the side files must follow). */
  @ParameterizedTest
  @ValueSource(strings = {"lineage", "a b/ü名 [x] {y}"})
  void compactsSpillsAndCollectsOnS3(String name) throws Exception {
    String uri = S3.newUri(name);
    Map<String, String> storage = S3.storageOptions();
    LineageTables.useStorage(uri, storage);
    LineageTables.createStable(uri);
    LineageTables.append(uri, 0, 1_000, 5);
    LineageTables.update(uri, List.of(3L, 333L, 666L, 999L));
    LineageTables.setConfig(
        uri, Map.of("lance.row_lineage.spill", "true", "lance.row_lineage.inline_max_bytes", "8"));
    Map<Long, List<Object>> before = LineageTables.rowsByRowId(uri);

    List<CompactionSummary> compaction = pass(uri, storage, "1 h");

    assertThat(compaction)
        .singleElement()
        .satisfies(s -> assertThat(s.outcome()).isEqualTo(CompactionSummary.Outcome.COMMITTED));
    String sideFile = compaction.get(0).lineageBytesSpilled() > 0 ? sideFiles(uri).get(0) : null;
    assertThat(sideFile).isNotNull();
    assertThat(externalRowIds(uri, storage)).isPositive();
    assertThat(LineageTables.rowsByRowId(uri)).isEqualTo(before);
    List<Long> rowIds = new ArrayList<>(before.keySet()).subList(0, 20);
    assertThat(LineageTables.takeIds(uri, rowIds))
        .containsExactlyElementsOf(
            rowIds.stream().map(id -> Long.parseLong((String) before.get(id).get(0))).toList());

    // an orphan (a compaction that never committed) goes; the referenced file stays
    try (TableFiles files = TableFiles.of(new TableRef(uri, storage)).orElseThrow()) {
      files.write(SideFileSpill.PREFIX + "orphan.bin", new byte[] {1, 2, 3});
    }
    Thread.sleep(20);
    List<CompactionSummary> cleanup = pass(uri, storage, "10 ms");

    assertThat(cleanup)
        .singleElement()
        .satisfies(
            s -> assertThat(s.outcome()).isEqualTo(CompactionSummary.Outcome.NOTHING_TO_COMPACT));
    assertThat(sideFiles(uri)).containsExactly(sideFile);
    assertThat(LineageTables.rowsByRowId(uri)).isEqualTo(before);
  }

  /**
   * The standalone job's cleanup on s3:// keeps the versions a live consumer registered there
   * needs, and deletes an expired registration.
   */
  @ParameterizedTest
  @ValueSource(strings = {"consumed"})
  void cleanupKeepsWhatALiveConsumerNeedsOnS3(String name) throws Exception {
    String uri = S3.newUri(name);
    Map<String, String> storage = S3.storageOptions();
    LineageTables.useStorage(uri, storage);
    LineageTables.createStable(uri); // version 1
    for (int i = 0; i < 4; i++) {
      LineageTables.append(uri, i * 10, 10, 1); // versions 2..5
    }
    long now = System.currentTimeMillis();
    try (TableFiles files = TableFiles.of(new TableRef(uri, storage)).orElseThrow()) {
      Consumers consumers = new Consumers(files);
      consumers.register(new ConsumerRegistration("live", 3, now, 3_600_000));
      consumers.register(new ConsumerRegistration("gone", 1, now - 7_200_000, 3_600_000));
    }
    Map<Long, List<Object>> before = LineageTables.rowsByRowId(uri);

    pass(uri, storage, "1 h");

    assertThat(versions(uri, storage)).as("the pass compacts, too").startsWith(3L, 4L, 5L);
    assertThat(S3.keys(uri).stream().filter(key -> key.contains("/_consumers/")))
        .singleElement()
        .satisfies(key -> assertThat(key).endsWith("/_consumers/live.json"));
    assertThat(LineageTables.rowsByRowId(uri)).isEqualTo(before);
  }

  private static List<Long> versions(String uri, Map<String, String> storage) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = open(uri, storage, allocator)) {
      return dataset.listVersions().stream().map(Version::getId).sorted().toList();
    }
  }

  private static Dataset open(String uri, Map<String, String> storage, BufferAllocator allocator) {
    return Dataset.open()
        .allocator(allocator)
        .uri(uri)
        .readOptions(new ReadOptions.Builder().setStorageOptions(storage).build())
        .build();
  }

  private static List<CompactionSummary> pass(
      String uri, Map<String, String> storage, String sideFileMinAge) throws Exception {
    Configuration options = new Configuration();
    options.setString("path", uri);
    storage.forEach((key, value) -> options.setString("storage." + key, value));
    options.setString("compaction.cleanup-older-than", "0 s");
    options.setString("compaction.side-file-min-age", sideFileMinAge);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(1);
    return LanceCompactionJob.compactOnce(env, options);
  }

  private static List<String> sideFiles(String uri) {
    return S3.keys(uri).stream()
        .map(key -> key.substring(key.lastIndexOf('/') + 1))
        .filter(name -> name.startsWith(SideFileSpill.PREFIX))
        .toList();
  }

  private static long externalRowIds(String uri, Map<String, String> storage) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = open(uri, storage, allocator)) {
      return dataset.getFragments().stream()
          .filter(f -> f.metadata().getRowIdMeta().getMetadata().startsWith("{\"External\""))
          .count();
    }
  }
}
