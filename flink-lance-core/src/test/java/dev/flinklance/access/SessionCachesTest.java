package dev.flinklance.access;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.flink.configuration.Configuration;
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
            afterFollowingEveryVersion(LanceDatasetOptions.dataset(local.uri(), limits("128kb"))))
        .as("with the options' limits")
        .isLessThanOrEqualTo(2 * LIMIT);
  }

  private static Configuration limits(String size) {
    return Configuration.fromMap(Map.of("metadata-cache-size", size, "index-cache-size", size));
  }

  @Test
  void theOptionsReachEveryTableAJobOpens() {
    String uri = dir.resolve("t").toString();
    SessionCaches caches = new SessionCaches(LIMIT, LIMIT);
    TableRef table = LanceDatasetOptions.dataset(uri, limits("128kb"));
    assertThat(table.sessionCaches()).isEqualTo(caches);
    // a job started from a table (the compaction procedure's) keeps them
    assertThat(
            LanceDatasetOptions.dataset(
                    uri, Configuration.fromMap(LanceDatasetOptions.toOptions(table)))
                .sessionCaches())
        .isEqualTo(caches);
    // the dynamic sink's and the catalog's tables, by name in a warehouse
    assertThat(
            new Warehouse(dir.toString(), limits("128kb").toMap()).table("db", "t").sessionCaches())
        .isEqualTo(caches);
    assertThat(LanceDatasetOptions.dataset(uri, new Configuration()).sessionCaches())
        .isEqualTo(SessionCaches.DEFAULT);
  }

  @Test
  void aLimitOfNothingIsRefusedNamingTheOption() {
    assertThatThrownBy(
            () ->
                LanceDatasetOptions.dataset(
                    dir.toString(), Configuration.fromMap(Map.of("index-cache-size", "0"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid Lance table option 'index-cache-size': must be more than 0 bytes");
    assertThatThrownBy(
            () ->
                LanceDatasetOptions.dataset(
                    dir.toString(), Configuration.fromMap(Map.of("metadata-cache-size", "lots"))))
        .hasMessageStartingWith(
            "Invalid Lance table option 'metadata-cache-size': cannot parse 'lots'");
  }

  @Test
  void everyTableHasTheConnectorsLimitsUnlessGivenOthers() {
    TableRef table = TableRef.at(dir.resolve("t").toString(), Map.of());
    assertThat(table.sessionCaches()).isEqualTo(SessionCaches.DEFAULT);
    assertThat(SessionCaches.DEFAULT.metadataBytes())
        .isLessThan(SessionCaches.LANCE_DEFAULTS.metadataBytes());
    assertThat(SessionCaches.DEFAULT.indexBytes())
        .isLessThan(SessionCaches.LANCE_DEFAULTS.indexBytes());
    assertThatThrownBy(() -> new SessionCaches(0, 1)).hasMessageContaining("positive");
  }
}
