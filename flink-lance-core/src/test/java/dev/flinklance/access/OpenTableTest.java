package dev.flinklance.access;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.errors.LanceDatasetException;
import dev.flinklance.errors.PermanentDatasetException;
import dev.flinklance.errors.TableReplacedException;
import dev.flinklance.testing.TestFiles;
import dev.flinklance.testing.TestFragments;
import java.nio.file.Path;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.cleanup.CleanupPolicy;

/**
 * One user's open table against real Lance tables: which version each way of opening gives, moves
 * that stay on the same table (appended to: moved; dropped, or deleted and created again with fewer
 * or more versions: refused), and the allocator owned with it.
 */
class OpenTableTest {
  @TempDir Path dir;
  private LocalTable local;
  private String uri;
  private TableRef table;

  /** Versions 1 (empty), 2 (rows 1, 2) and 3 (row 3), version 2 tagged 'first'. */
  @BeforeEach
  void createTable() {
    local = LocalTable.create(dir, 1, 2);
    uri = local.uri();
    table = local.ref();
    local.append(3);
    local.tag("first", 2);
  }

  @Test
  void opensTheLatestAPinnedOrATaggedVersion() {
    try (OpenTable latest = OpenTable.latest(table);
        OpenTable pinned = OpenTable.at(table, 1L, null);
        OpenTable tagged = OpenTable.at(table, null, "first");
        OpenTable unpinned = OpenTable.at(table, null, null)) {
      assertThat(latest.dataset().version()).isEqualTo(3);
      assertThat(latest.dataset().countRows()).isEqualTo(3);
      assertThat(pinned.dataset().version()).isEqualTo(1);
      assertThat(tagged.dataset().version()).isEqualTo(2);
      assertThat(tagged.dataset().countRows()).isEqualTo(2);
      assertThat(unpinned.dataset().version()).isEqualTo(3);
      assertThat(latest.table()).isSameAs(table);
    }
  }

  @Test
  void aMissingTableVersionOrTagIsNamed() {
    TableRef missing = TableRef.at(dir.resolve("missing").toString(), Map.of());
    assertThat(OpenTable.latestIfExists(missing)).isEmpty();
    assertThat(OpenTable.exists(missing)).isFalse();
    assertThat(OpenTable.exists(table)).isTrue();
    assertThatThrownBy(() -> OpenTable.latest(missing))
        .isInstanceOf(PermanentDatasetException.class)
        .hasMessageContaining(missing.uri())
        .hasMessageContaining("the table does not exist");
    assertThatThrownBy(() -> OpenTable.at(table, 9L, null))
        .isInstanceOf(PermanentDatasetException.class)
        .hasMessageContaining(uri)
        .hasMessageContaining("cannot open version 9");
    assertThatThrownBy(() -> OpenTable.at(table, null, "nope"))
        .isInstanceOf(LanceDatasetException.class)
        .hasMessageContaining(uri)
        .hasMessageContaining("cannot resolve tag 'nope'");
  }

  @Test
  void latestIfExistsOpensTheLatestVersion() {
    try (OpenTable open = OpenTable.latestIfExists(table).orElseThrow()) {
      assertThat(open.dataset().version()).isEqualTo(3);
    }
  }

  @Test
  void moveToLatestFollowsAppendsToTheSameTable() {
    try (OpenTable open = OpenTable.at(table, 1L, null)) {
      assertThat(open.moveToLatest()).isTrue();
      assertThat(open.dataset().version()).isEqualTo(3);
      assertThat(open.moveToLatest()).as("nothing new").isFalse();
      local.append(4);
      assertThat(open.moveToLatest()).isTrue();
      assertThat(open.dataset().version()).isEqualTo(4);
      assertThat(open.dataset().countRows()).isEqualTo(4);
      open.verifySameTable();
    }
  }

  @Test
  void moveToLatestRefusesATableRecreatedWithFewerVersions() {
    try (OpenTable open = OpenTable.latest(table)) {
      TestFragments.recreateTable(uri, 2);
      assertThatThrownBy(open::moveToLatest)
          .isInstanceOf(TableReplacedException.class)
          .hasMessageContaining(uri)
          .hasMessageContaining("its latest version is 2, but this job already saw version 3");
      assertThat(open.dataset().version()).as("still the old table's version").isEqualTo(3);
    }
  }

  @Test
  void moveToLatestRefusesATableRecreatedWithMoreVersions() {
    try (OpenTable open = OpenTable.latest(table)) {
      TestFragments.recreateTable(uri, 5);
      assertThatThrownBy(open::moveToLatest)
          .isInstanceOf(TableReplacedException.class)
          .hasMessageContaining("version 3 was committed at");
      assertThat(open.dataset().version()).as("still the old table's version").isEqualTo(3);
      assertThatThrownBy(open::verifySameTable).isInstanceOf(TableReplacedException.class);
    }
  }

  @Test
  void moveToLatestOfADroppedTableSaysItIsGone() throws Exception {
    try (OpenTable open = OpenTable.latest(table)) {
      TestFiles.deleteRecursively(Path.of(uri));
      assertThatThrownBy(open::moveToLatest)
          .isInstanceOfSatisfying(
              TableReplacedException.class, e -> assertThat(e.tableGone()).isTrue());
    }
  }

  @Test
  void moveToGoesToAVersionOfTheSameTableOnly() {
    try (OpenTable open = OpenTable.latest(table)) {
      open.moveTo(2);
      assertThat(open.dataset().version()).isEqualTo(2);
      assertThat(open.dataset().countRows()).isEqualTo(2);
      open.moveTo(3);
      assertThat(open.dataset().version()).isEqualTo(3);
      TestFragments.recreateTable(uri, 3);
      assertThatThrownBy(() -> open.moveTo(1))
          .isInstanceOf(TableReplacedException.class)
          .hasMessageContaining("version 3 was committed at");
      assertThat(open.dataset().version()).isEqualTo(3);
    }
  }

  @Test
  void checkoutOpensAnotherVersionOfTheSameTableWithTheSameAllocator() {
    try (OpenTable open = OpenTable.at(table, 2L, null)) {
      try (Dataset older = open.checkout(1);
          Dataset newer = open.checkout(3)) {
        assertThat(older.version()).isEqualTo(1);
        assertThat(newer.version()).isEqualTo(3);
        assertThat(newer.countRows()).isEqualTo(3);
      }
      assertThat(open.dataset().version()).as("the open version stays").isEqualTo(2);
      assertThatThrownBy(() -> open.checkout(9))
          .isInstanceOf(PermanentDatasetException.class)
          .hasMessageContaining(uri)
          .hasMessageContaining("cannot open version 9");
      TestFragments.recreateTable(uri, 3);
      assertThatThrownBy(() -> open.checkout(3))
          .isInstanceOf(TableReplacedException.class)
          .hasMessageContaining("version 3 was committed at");
    }
  }

  /**
   * The check after a checkout of a newer version compares against that version: the open one may
   * be cleaned up in a replacement, and a version that is gone cannot be checked.
   */
  @Test
  void aNewerCheckoutIsWhatLaterChecksCompareAgainst() {
    try (OpenTable open = OpenTable.at(table, 1L, null)) {
      open.checkout(3).close();
      TestFragments.recreateTable(uri, 4);
      try (OpenTable replacement = OpenTable.latest(table)) {
        replacement
            .dataset()
            .cleanupWithPolicy(CleanupPolicy.builder().withBeforeVersion(3L).build());
      }
      assertThatThrownBy(() -> OpenTable.at(table, 1L, null))
          .as("the new table's version 1 is gone: a check against it would pass")
          .isInstanceOf(PermanentDatasetException.class);
      assertThatThrownBy(open::verifySameTable)
          .isInstanceOf(TableReplacedException.class)
          .hasMessageContaining("version 3 was committed at");
    }
  }

  @Test
  void explainTellsAFailureOnAReplacedTableFromOthers() {
    RuntimeException failure = new IllegalStateException("cannot read a data file");
    RuntimeException conflict = new IllegalStateException("Retryable commit conflict for v4");
    try (OpenTable open = OpenTable.latest(table)) {
      assertThat(open.explain(failure)).as("the table is still there").isSameAs(failure);
      TestFragments.recreateTable(uri, 1);
      assertThat(open.explain(failure))
          .isInstanceOf(TableReplacedException.class)
          .hasMessageContaining("its latest version is 1")
          .satisfies(e -> assertThat(e.getSuppressed()).containsExactly(failure));
      assertThat(open.explain(conflict)).as("a conflict is no replacement").isSameAs(conflict);
    }
  }

  @Test
  void closeClosesTheAllocatorWithTheDataset() {
    OpenTable open = OpenTable.latest(table);
    BufferAllocator allocator = open.allocator();
    allocator.assertOpen();
    open.close();
    assertThatThrownBy(allocator::assertOpen)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
  }
}
