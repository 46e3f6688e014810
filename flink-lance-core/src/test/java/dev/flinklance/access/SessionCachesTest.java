package dev.flinklance.access;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/**
 * A handle kept open while it follows a table's new versions and scans them (a committer's, a
 * lookup's) shares one Lance session with every version it reads, whose caches take the metadata of
 * each data file read: within the table's limits ({@link SessionCaches}), not Lance's 1 GiB and 6
 * GiB, which made a long-lived TaskManager of the soak grow by about 500 MB an hour.
 */
class SessionCachesTest {
  private static final long LIMIT = 128 * 1024;

  @TempDir Path dir;

  /** How much the session of a handle that read every version of the table holds. */
  private static long afterFollowingEveryVersion(TableRef table) throws Exception {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset first = table.open(allocator, 1)) {
      for (long version = 2; version <= first.latestVersion(); version++) {
        try (Dataset at = first.checkoutVersion(version);
            LanceScanner scan = at.newScan(new ScanOptions.Builder().filter("id = 7").build());
            ArrowReader reader = scan.scanBatches()) {
          while (reader.loadNextBatch()) {
            // reads each fragment's data file, whose metadata the session caches
          }
        }
      }
      return first.session().sizeBytes();
    }
  }

  @Test
  void aHandleFollowingNewVersionsKeepsItsSessionWithinTheLimit() throws Exception {
    LocalTable local = LocalTable.create(dir, 0);
    for (long id = 1; id < 80; id++) {
      local.append(id);
    }
    assertThat(
            afterFollowingEveryVersion(local.ref().withSessionCaches(SessionCaches.LANCE_DEFAULTS)))
        .as("with Lance's limits the session keeps all it read")
        .isGreaterThan(2 * LIMIT);
    assertThat(
            afterFollowingEveryVersion(
                local.ref().withSessionCaches(new SessionCaches(LIMIT, LIMIT))))
        .isLessThanOrEqualTo(2 * LIMIT);
  }

  @Test
  void everyTableHasTheConnectorsLimitsUnlessGivenOthers() {
    TableRef table = TableRef.at(dir.resolve("t").toString(), java.util.Map.of());
    assertThat(table.sessionCaches()).isEqualTo(SessionCaches.DEFAULT);
    assertThat(SessionCaches.DEFAULT.metadataBytes())
        .isLessThan(SessionCaches.LANCE_DEFAULTS.metadataBytes());
    assertThat(SessionCaches.DEFAULT.indexBytes())
        .isLessThan(SessionCaches.LANCE_DEFAULTS.indexBytes());
    assertThatThrownBy(() -> new SessionCaches(0, 1)).hasMessageContaining("positive");
  }
}
