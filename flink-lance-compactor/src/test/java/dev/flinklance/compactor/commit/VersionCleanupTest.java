package dev.flinklance.compactor.commit;

import static dev.flinklance.compactor.testing.LineageTables.append;
import static dev.flinklance.compactor.testing.LineageTables.createStable;
import static dev.flinklance.compactor.testing.LineageTables.sideFiles;
import static dev.flinklance.compactor.testing.LineageTables.update;
import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.access.TableRef;
import dev.flinklance.compactor.testing.LineageTables;
import dev.flinklance.consumer.ConsumerRegistration;
import dev.flinklance.consumer.Consumers;
import dev.flinklance.files.TableFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.Version;
import org.lance.compaction.CompactionOptions;

/**
 * Side-file GC after Lance cleanup: files referenced by the latest version or a tagged old version
 * stay, unreferenced ones go once old enough, young ones (a compaction may be about to commit them)
 * stay.
 */
class VersionCleanupTest {
  private static final Duration MIN_AGE = Duration.ofHours(1);

  @TempDir Path dir;

  @Test
  void deletesOnlyOldSideFilesNoRemainingVersionReferences() throws IOException {
    String uri = dir.resolve("t").toString();
    createStable(uri);
    append(uri, 0, 1_000, 4);
    update(uri, List.of(1L, 10L, 100L, 500L, 900L));
    Rewrites.spillEverything(uri);
    Rewrites.rewrite(uri).commit(uri, false);
    String tagged = single(sideFiles(uri));
    long taggedVersion = latestVersion(uri);
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open().allocator(allocator).uri(uri).build()) {
      dataset.tags().create("kept", taggedVersion);
      // Lance's own compaction writes the row ids back inline: the file is only in old versions
      dataset.compact(CompactionOptions.builder().withTargetRowsPerFragment(1_000_000).build());
    }
    append(uri, 1_000, 1_000, 4);
    update(uri, List.of(2L, 20L, 1_200L, 1_900L));
    Rewrites.rewrite(uri).commit(uri, false);
    String latest =
        sideFiles(uri).stream().filter(f -> !f.equals(tagged)).findFirst().orElseThrow();
    String oldOrphan = orphan(uri, "_rowids-old-orphan.bin", Duration.ofHours(2));
    String youngOrphan = orphan(uri, "_rowids-young-orphan.bin", Duration.ofMinutes(1));
    // old enough for GC: only their references keep them
    age(uri, tagged, Duration.ofHours(2));
    age(uri, latest, Duration.ofHours(2));

    assertThat(cleanup(uri, Duration.ofDays(1))).isEqualTo(1);
    assertThat(sideFiles(uri)).containsExactlyInAnyOrder(tagged, latest, youngOrphan);

    assertThat(cleanup(uri, Duration.ZERO)).as("tagged version kept by cleanup").isZero();
    assertThat(sideFiles(uri)).containsExactlyInAnyOrder(tagged, latest, youngOrphan);
    assertThat(oldOrphan).isNotIn(sideFiles(uri));

    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open().allocator(allocator).uri(uri).build()) {
      dataset.tags().delete("kept");
    }
    Map<Long, List<Object>> rows = LineageTables.rowsByRowId(uri);
    assertThat(cleanup(uri, Duration.ZERO)).isEqualTo(1);
    assertThat(sideFiles(uri)).containsExactlyInAnyOrder(latest, youngOrphan);
    assertThat(LineageTables.rowsByRowId(uri)).isEqualTo(rows);
  }

  /**
   * A live consumer's registration bounds the cleanup: its version and every later one stay, the
   * older ones go. An expired registration bounds nothing and is deleted; clocks are given.
   */
  @Test
  void keepsWhatALiveConsumerNeedsAndDeletesAnExpiredRegistration() throws IOException {
    String uri = dir.resolve("consumed").toString();
    createStable(uri); // version 1
    for (int i = 0; i < 5; i++) {
      append(uri, i * 10, 10, 1); // versions 2..6
    }
    long now = System.currentTimeMillis() + 60_000; // every version is older than 0 s then
    register(uri, new ConsumerRegistration("behind", 3, now - 1_000, 60_000));
    register(uri, new ConsumerRegistration("abandoned", 2, now - 60_000, 60_000));
    Map<Long, List<Object>> rows = LineageTables.rowsByRowId(uri);

    cleanup(uri, Duration.ZERO, now);

    assertThat(versions(uri))
        .as("version 3 and later kept for 'behind'")
        .containsExactly(3L, 4L, 5L, 6L);
    assertThat(registrations(uri))
        .extracting(ConsumerRegistration::consumerId)
        .containsExactly("behind");
    assertThat(LineageTables.rowsByRowId(uri)).isEqualTo(rows);

    // 'behind' stops writing its registration: once it expires, it holds nothing back
    cleanup(uri, Duration.ZERO, now - 1_000 + 60_000);

    assertThat(versions(uri)).containsExactly(6L);
    assertThat(registrations(uri)).isEmpty();
    assertThat(LineageTables.rowsByRowId(uri)).isEqualTo(rows);
  }

  private static void register(String uri, ConsumerRegistration registration) throws IOException {
    try (TableFiles files = TableFiles.of(new TableRef(uri, Map.of())).orElseThrow()) {
      new Consumers(files).register(registration);
    }
  }

  private static List<ConsumerRegistration> registrations(String uri) throws IOException {
    try (TableFiles files = TableFiles.of(new TableRef(uri, Map.of())).orElseThrow()) {
      return new Consumers(files).list();
    }
  }

  private static List<Long> versions(String uri) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open().allocator(allocator).uri(uri).build()) {
      return dataset.listVersions().stream().map(Version::getId).sorted().toList();
    }
  }

  private static int cleanup(String uri, Duration olderThan) throws IOException {
    return cleanup(uri, olderThan, System.currentTimeMillis());
  }

  private static int cleanup(String uri, Duration olderThan, long nowMillis) throws IOException {
    var config = Rewrites.config(uri);
    Optional<TableFiles> files = TableFiles.of(config.dataset());
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = config.dataset().open(allocator)) {
      return new VersionCleanup(olderThan, MIN_AGE, files).run(dataset, nowMillis);
    } finally {
      files.ifPresent(TableFiles::close);
    }
  }

  private static String orphan(String uri, String name, Duration age) throws IOException {
    Files.write(Path.of(uri).resolve(name), new byte[] {1, 2, 3});
    age(uri, name, age);
    return name;
  }

  private static void age(String uri, String name, Duration age) throws IOException {
    Files.setLastModifiedTime(Path.of(uri).resolve(name), FileTime.from(Instant.now().minus(age)));
  }

  private static String single(List<String> files) {
    assertThat(files).hasSize(1);
    return files.get(0);
  }

  private static long latestVersion(String uri) {
    return dev.flinklance.testing.LanceTestTables.latestVersion(uri);
  }
}
