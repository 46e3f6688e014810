package dev.flinklance.access;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.errors.PermanentDatasetException;
import dev.flinklance.errors.TableReplacedException;
import dev.flinklance.testing.TestFiles;
import dev.flinklance.testing.TestFragments;
import dev.flinklance.testing.TestRows;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.schema.ColumnAlteration;

/**
 * A task's followed table against real Lance tables: moved to the newest version once its interval
 * has passed, never when pinned; a table dropped or replaced and a column dropped under it end the
 * reads for good, naming the table and the column.
 */
class FollowedTableTest {
  /** Due again at every read: each read looks for a newer version. */
  private static final Duration EVERY_READ = Duration.ofNanos(1);

  /** Never due within a test. */
  private static final Duration A_DAY = Duration.ofDays(1);

  @TempDir Path dir;
  private LocalTable local;
  private String uri;
  private TableRef table;
  private final List<Long> versions = new ArrayList<>();

  /** Versions 1 (empty), 2 (rows 1, 2), version 2 tagged 'first'. */
  @BeforeEach
  void createTable() {
    local = LocalTable.create(dir, 1, 2);
    uri = local.uri();
    table = local.ref();
    local.tag("first", 2);
  }

  private FollowedTable followed(Long version, String tag, Duration refreshInterval) {
    FollowedTable followed =
        new FollowedTable(
            table,
            version,
            tag,
            refreshInterval,
            TestRows.ROW_TYPE,
            d -> versions.add(d.version()));
    followed.open();
    return followed;
  }

  @Test
  void movesToTheNewestVersionOnceItsIntervalPassedAndSaysSoOncePerMove() {
    try (FollowedTable followed = followed(null, null, EVERY_READ)) {
      assertThat(followed.read(Dataset::version)).isEqualTo(2);
      local.append(3);
      local.append(4);
      long rows = followed.read(Dataset::countRows);
      assertThat(rows).isEqualTo(4);
      assertThat(followed.read(Dataset::version)).isEqualTo(4);
      assertThat(versions).as("the first version, then each move").containsExactly(2L, 4L);
    }
  }

  @Test
  void staysAtItsVersionUntilTheIntervalPassed() {
    try (FollowedTable followed = followed(null, null, A_DAY)) {
      local.append(3);
      assertThat(followed.read(Dataset::version)).isEqualTo(2);
      assertThat(versions).containsExactly(2L);
    }
  }

  @Test
  void aPinnedOrTaggedVersionOrAZeroIntervalNeverMoves() {
    assertThat(FollowedTable.follows(null, null, EVERY_READ)).isTrue();
    assertThat(FollowedTable.follows(1L, null, EVERY_READ)).isFalse();
    assertThat(FollowedTable.follows(null, "first", EVERY_READ)).isFalse();
    assertThat(FollowedTable.follows(null, null, Duration.ZERO)).isFalse();
    try (FollowedTable pinned = followed(1L, null, EVERY_READ);
        FollowedTable tagged = followed(null, "first", EVERY_READ);
        FollowedTable unrefreshed = followed(null, null, Duration.ZERO)) {
      local.append(3);
      assertThat(pinned.read(Dataset::version)).isEqualTo(1);
      assertThat(tagged.read(Dataset::version)).isEqualTo(2);
      assertThat(unrefreshed.read(Dataset::version)).isEqualTo(2);
      assertThat(versions).containsExactly(1L, 2L, 2L);
    }
  }

  @Test
  void aReplacedTableEndsTheReadsForGood() {
    try (FollowedTable followed = followed(null, null, EVERY_READ)) {
      TestFragments.recreateTable(uri, 4);
      assertThatThrownBy(() -> followed.read(Dataset::version))
          .isInstanceOf(PermanentDatasetException.class)
          .isNotInstanceOf(TableReplacedException.class) // whose message speaks of writing
          .hasMessageContaining(uri)
          .hasMessageContaining("dropped or replaced while this job read it")
          .hasMessageContaining("version 2 was committed at");
      assertThatThrownBy(followed::checkSameTable)
          .isInstanceOf(PermanentDatasetException.class)
          .hasMessageContaining("dropped or replaced while this job read it");
      assertThat(versions).containsExactly(2L);
    }
  }

  @Test
  void aDroppedTableEndsTheReadsForGood() throws Exception {
    try (FollowedTable pinned = followed(2L, null, A_DAY)) {
      TestFiles.deleteRecursively(Path.of(uri));
      assertThatThrownBy(pinned::checkSameTable)
          .isInstanceOf(PermanentDatasetException.class)
          .hasMessageContaining(uri)
          .hasMessageContaining("no table at the URI");
    }
  }

  @Test
  void aDroppedColumnEndsTheReadsNamingIt() {
    try (FollowedTable followed = followed(null, null, EVERY_READ)) {
      try (OpenTable open = OpenTable.latest(table)) {
        open.dataset().dropColumns(List.of("name"));
      }
      assertThatThrownBy(() -> followed.read(Dataset::version))
          .isInstanceOf(PermanentDatasetException.class)
          .hasMessageContaining(uri)
          .hasMessageContaining(
              "version 3 no longer has the columns this job reads: since version 2, which it read"
                  + " before, another client dropped column 'name'.");
      assertThat(versions).containsExactly(2L);
    }
  }

  /** Lance field ids tell a rename, and a column dropped and added again under its name. */
  @Test
  void aRenamedOrReplacedColumnEndsTheReadsNamingTheChange() {
    try (FollowedTable renamed = followed(null, null, EVERY_READ)) {
      try (OpenTable open = OpenTable.latest(table)) {
        open.dataset()
            .alterColumns(List.of(new ColumnAlteration.Builder("name").rename("label").build()));
      }
      assertThatThrownBy(() -> renamed.read(Dataset::version))
          .isInstanceOf(PermanentDatasetException.class)
          .hasMessageContaining(uri)
          .hasMessageContaining(
              "version 3 no longer has the columns this job reads: since version 2, which it"
                  + " read before, another client renamed column 'name' to 'label'.");
    }
    try (OpenTable open = OpenTable.latest(table)) {
      open.dataset()
          .alterColumns(List.of(new ColumnAlteration.Builder("label").rename("name").build())); // 4
    }
    try (FollowedTable replaced = followed(null, null, EVERY_READ)) {
      try (OpenTable open = OpenTable.latest(table)) {
        open.dataset().dropColumns(List.of("name")); // 5
        open.dataset()
            .addColumns(
                List.of(new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null))); // 6
      }
      assertThatThrownBy(() -> replaced.read(Dataset::version))
          .isInstanceOf(PermanentDatasetException.class)
          .hasMessageContaining(
              "version 6 no longer has the columns this job reads: since version 4, which it"
                  + " read before, another client dropped column 'name' and added another of"
                  + " that name (NULL in the rows before).");
    }
  }

  @Test
  void aColumnMissingAtTheStartFailsTheOpen() {
    try (OpenTable open = OpenTable.latest(table)) {
      open.dataset().dropColumns(List.of("name"));
    }
    FollowedTable followed =
        new FollowedTable(
            table, null, null, A_DAY, TestRows.ROW_TYPE, d -> versions.add(d.version()));
    try (followed) {
      assertThatThrownBy(followed::open)
          .isInstanceOf(PermanentDatasetException.class)
          .hasStackTraceContaining("Column 'name' does not exist");
    }
  }
}
