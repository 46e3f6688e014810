package dev.flinklance.table.lookup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.errors.PermanentDatasetException;
import dev.flinklance.table.lookup.FullCacheFormat.FragmentSplit;
import dev.flinklance.table.testing.Users;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A FULL cache load against a real table: the fragments of the version the load planned, each read
 * at that version of that table; a table replaced between planning and reading fails the load.
 */
class FullCacheFormatTest {
  @TempDir Path dir;
  private String uri;
  private FullCacheFormat format;

  /** Rows 0 to 9 in two fragments, at version 2. */
  @BeforeEach
  void createTable() {
    uri = dir.resolve("users").toString();
    Users.write(uri, 10, 5);
    format =
        new FullCacheFormat(
            new LookupSpec(
                Users.local(uri),
                null,
                null,
                Users.ROW_TYPE,
                List.of("id"),
                null,
                true,
                0,
                Duration.ZERO));
  }

  @Test
  void loadsTheFragmentsOfThePlannedVersion() {
    FragmentSplit[] splits = format.createInputSplits(1);
    assertThat(splits).hasSize(2).allSatisfy(split -> assertThat(split.version()).isEqualTo(2));
    List<Long> ids = new ArrayList<>();
    for (FragmentSplit split : splits) {
      ids.addAll(read(split));
    }
    assertThat(ids).containsExactlyInAnyOrder(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L);
  }

  @Test
  void aTableReplacedBetweenPlanningAndReadingFailsTheLoad() throws Exception {
    FragmentSplit[] splits = format.createInputSplits(1);
    Path next = dir.resolve("next");
    Users.write(next.toString(), 20, 10); // the same versions and fragments, committed later
    Files.move(Path.of(uri), dir.resolve("replaced"));
    Files.move(next, Path.of(uri));
    assertThatThrownBy(() -> read(splits[0]))
        .isInstanceOf(PermanentDatasetException.class)
        .hasMessageContaining(uri)
        .hasMessageContaining("dropped or replaced")
        .hasMessageContaining("version 2 was committed at");
  }

  private List<Long> read(FragmentSplit split) {
    List<Long> ids = new ArrayList<>();
    try {
      format.open(split);
      while (!format.reachedEnd()) {
        ids.add(format.nextRecord(null).getLong(0));
      }
    } finally {
      format.close();
    }
    return ids;
  }
}
