package dev.flinklance.sink.committer;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.access.VersionMark;
import dev.flinklance.commit.CommitStamp;
import dev.flinklance.errors.PermanentDatasetException;
import dev.flinklance.testing.TestFragments;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.schema.ColumnAlteration;

/**
 * Fragments written with columns {@code id, name}, then another client changes the table before
 * they are committed: a column it added is fine, a dropped, renamed or retyped {@code name} is
 * refused naming the table, the column and both types.
 */
class WrittenColumnsTest {
  @TempDir Path dir;
  private String table;
  private LanceCommittable committable;

  @BeforeEach
  void writeFragments() {
    table = dir.resolve("t").toString();
    TestFragments.createTable(table);
    VersionMark start;
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open(table, allocator)) {
      start = VersionMark.of(dataset);
    }
    committable =
        new LanceCommittable(
            new CommitStamp("user", "run", 1, 1, "job"),
            start,
            false,
            TestFragments.write(table, 1, 2));
  }

  @Test
  void aColumnAddedSinceIsFine() {
    change(d -> d.addColumns(List.of(Field.nullable("extra", ArrowType.Utf8.INSTANCE))));
    assertThatCode(this::check).doesNotThrowAnyException();
  }

  @Test
  void aDroppedColumnIsRefused() {
    change(d -> d.dropColumns(List.of("name")));
    assertThatThrownBy(this::check)
        .isInstanceOf(PermanentDatasetException.class)
        .hasMessageContaining(table)
        .hasMessageContaining(
            "column 'name' (Utf8) that the sink writes was dropped from the table")
        .hasMessageContaining("nothing of checkpoint 1 is committed");
  }

  @Test
  void aRenamedColumnIsRefused() {
    change(
        d -> d.alterColumns(List.of(new ColumnAlteration.Builder("name").rename("title").build())));
    assertThatThrownBy(this::check)
        .isInstanceOf(PermanentDatasetException.class)
        .hasMessageContaining(
            "column 'name' (Utf8) that the sink writes was renamed to 'title' in the table");
  }

  @Test
  void aRetypedColumnIsRefusedNamingBothTypes() {
    change(d -> d.dropColumns(List.of("name")));
    change(d -> d.addColumns(List.of(Field.nullable("name", new ArrowType.Int(64, true)))));
    assertThatThrownBy(this::check)
        .isInstanceOf(PermanentDatasetException.class)
        .hasMessageContaining(
            "column 'name' (Utf8) that the sink writes was dropped from the table and added again"
                + " as 'name' (Int(64, true))");
  }

  private void change(Consumer<Dataset> change) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open(table, allocator)) {
      change.accept(dataset);
    }
  }

  private void check() {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset newest = Dataset.open(table, allocator)) {
      new WrittenColumns(table).check(newest, committable);
    }
  }
}
