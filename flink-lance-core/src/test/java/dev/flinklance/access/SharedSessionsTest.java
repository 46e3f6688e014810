package dev.flinklance.access;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.testing.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.flink.util.FileUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/**
 * The handles of a table share one Lance session, closed once none is reachable, and a table
 * created again at the same location is read as it is now, not from the old one's cache entries.
 */
class SharedSessionsTest {
  @TempDir Path dir;

  @Test
  void handlesOfOneTableShareOneSession() {
    LocalTable table = LocalTable.create(dir, 1, 2, 3);
    TableRef otherLimits = table.ref().withSessionCaches(new SessionCaches(1 << 20, 1 << 20));
    LocalTable other = LocalTable.create(dir.resolve("other"), 4);
    try (BufferAllocator allocator = new RootAllocator();
        Dataset one = table.ref().open(allocator);
        Dataset two = table.ref().open(allocator, 1);
        Dataset limited = otherLimits.open(allocator);
        Dataset elsewhere = other.ref().open(allocator)) {
      assertThat(one.session().isSameAs(two.session())).as("one table, two versions").isTrue();
      assertThat(one.session().isSameAs(limited.session())).as("other limits").isFalse();
      assertThat(one.session().isSameAs(elsewhere.session())).as("another table").isFalse();
      assertThat(one.countRows()).isEqualTo(3);
      assertThat(two.countRows()).as("version 1, empty").isZero();
    }
  }

  /**
   * A handle of the old table keeps the session open (and its caches full of the old table's
   * manifests and data file metadata) while the table is dropped and created again with the same
   * versions: a new handle reads the new rows.
   */
  @Test
  void aTableCreatedAgainAtTheSameLocationIsReadAsItIsNow() throws Exception {
    LocalTable table = LocalTable.create(dir, 1, 2, 3);
    try (BufferAllocator allocator = new RootAllocator();
        Dataset old = table.ref().open(allocator)) {
      assertThat(ids(old)).containsExactlyInAnyOrder(1L, 2L, 3L);
      FileUtils.deleteDirectory(Path.of(table.uri()).toFile());
      LocalTable again = LocalTable.create(dir, 7, 8, 9);
      try (Dataset now = again.ref().open(allocator)) {
        assertThat(now.session().isSameAs(old.session())).isTrue();
        assertThat(now.version()).isEqualTo(old.version());
        assertThat(ids(now)).containsExactlyInAnyOrder(7L, 8L, 9L);
      }
    }
  }

  @Test
  void aSessionIsClosedOnceNoHandleOfItIsReachable() throws Exception {
    LocalTable table = LocalTable.create(dir, 1);
    SharedSessions.Key key =
        new SharedSessions.Key(table.uri(), Map.of(), table.ref().sessionCaches());
    try (BufferAllocator allocator = new RootAllocator()) {
      table.ref().open(allocator).close();
      Await.until(
          "the session closed",
          Duration.ofSeconds(30),
          () -> {
            System.gc();
            return !SharedSessions.holds(key);
          });
      try (Dataset reopened = table.ref().open(allocator)) {
        assertThat(SharedSessions.holds(key)).as("a new one for the next handle").isTrue();
        assertThat(reopened.countRows()).isEqualTo(1);
      }
    }
  }

  private static List<Long> ids(Dataset dataset) throws Exception {
    try (LanceScanner scanner =
            dataset.newScan(new ScanOptions.Builder().columns(List.of("id")).build());
        ArrowReader reader = scanner.scanBatches()) {
      List<Long> ids = new ArrayList<>();
      while (reader.loadNextBatch()) {
        BigIntVector column = (BigIntVector) reader.getVectorSchemaRoot().getVector("id");
        for (int i = 0; i < column.getValueCount(); i++) {
          ids.add(column.get(i));
        }
      }
      return ids;
    }
  }
}
