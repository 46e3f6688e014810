package dev.flinklance.compactor.commit;

import static dev.flinklance.compactor.testing.LineageTables.append;
import static dev.flinklance.compactor.testing.LineageTables.createStable;
import static dev.flinklance.compactor.testing.LineageTables.sideFiles;
import static dev.flinklance.compactor.testing.LineageTables.update;
import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.compactor.sidefile.SideFiles;
import dev.flinklance.compactor.testing.LineageTables;
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

  private static int cleanup(String uri, Duration olderThan) throws IOException {
    var config = Rewrites.config(uri);
    Optional<SideFiles> files = SideFiles.of(config.dataset());
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = config.dataset().open(allocator)) {
      return new VersionCleanup(olderThan, MIN_AGE, files).run(dataset);
    } finally {
      files.ifPresent(SideFiles::close);
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
