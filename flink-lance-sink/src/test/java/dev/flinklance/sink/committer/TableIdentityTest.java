package dev.flinklance.sink.committer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.access.TableRef;
import dev.flinklance.access.VersionMark;
import dev.flinklance.errors.TableReplacedException;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestFiles;
import dev.flinklance.testing.TestFragments;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every move of the committer's view to a newer version stays on the same table (issue 28). */
class TableIdentityTest {
  @TempDir Path dir;
  private String table;

  @BeforeEach
  void createTable() {
    table = dir.resolve("t").toString();
    TestFragments.createTable(table);
    LanceTestTables.appendFragments(table, TestFragments.write(table, 1, 2));
  }

  @Test
  void refreshMovesToVersionsOthersCommitted() {
    try (TableIdentity identity = new TableIdentity(TableRef.at(table, Map.of()))) {
      LanceTestTables.appendFragments(table, TestFragments.write(table, 3));
      identity.refresh();
      assertThat(identity.dataset().version()).isEqualTo(3);
      identity.verify(VersionMark.NO_TABLE);
    }
  }

  @Test
  void refreshRefusesATableRecreatedWithMoreVersions() {
    try (TableIdentity identity = new TableIdentity(TableRef.at(table, Map.of()))) {
      TestFragments.recreateTable(table, 4);
      assertThatThrownBy(identity::refresh)
          .isInstanceOf(TableReplacedException.class)
          .hasMessageContaining("version 2 was committed at");
      assertThat(identity.dataset().version()).as("still the old table's view").isEqualTo(2);
    }
  }

  @Test
  void refreshRefusesATableRecreatedWithFewerVersions() {
    try (TableIdentity identity = new TableIdentity(TableRef.at(table, Map.of()))) {
      TestFragments.recreateTable(table, 1);
      assertThatThrownBy(identity::refresh)
          .isInstanceOf(TableReplacedException.class)
          .hasMessageContaining("its latest version is 1, but this job already saw version 2");
    }
  }

  @Test
  void refreshOfADroppedTableSaysItIsGone() throws Exception {
    try (TableIdentity identity = new TableIdentity(TableRef.at(table, Map.of()))) {
      TestFiles.deleteRecursively(Path.of(table));
      assertThatThrownBy(identity::refresh)
          .isInstanceOf(TableReplacedException.class)
          .satisfies(e -> assertThat(((TableReplacedException) e).tableGone()).isTrue());
    }
  }
}
