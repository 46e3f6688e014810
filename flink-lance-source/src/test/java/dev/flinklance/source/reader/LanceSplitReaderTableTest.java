package dev.flinklance.source.reader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.access.TableRef;
import dev.flinklance.errors.PermanentDatasetException;
import dev.flinklance.source.LanceScan;
import dev.flinklance.source.LanceSourceOptions;
import dev.flinklance.source.split.LanceSplit;
import dev.flinklance.source.split.SplitKind;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestFiles;
import dev.flinklance.testing.TestFragments;
import dev.flinklance.testing.TestRows;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reader's table: each split is read at its version, every version out of the one table the
 * reader opened, so that a table deleted and created again at the URI between two versions ends the
 * read instead of mixing the new table's rows into it.
 */
class LanceSplitReaderTableTest {
  @TempDir Path dir;
  @RegisterExtension final SplitReaders readers = new SplitReaders();
  private String uri;
  private LanceScan scan;

  /** Version 2 adds fragment 0 (rows 1, 2), version 3 fragment 1 (row 3). */
  @BeforeEach
  void createTable() {
    uri = dir.resolve("t").toString();
    writeTable(new long[] {1, 2}, new long[] {3});
    scan =
        new LanceScan(
            TableRef.at(uri, Map.of()),
            null,
            null,
            TestRows.ROW_TYPE,
            null,
            null,
            LanceSourceOptions.SCAN_BATCH_SIZE.defaultValue(),
            null);
  }

  private void writeTable(long[] version2, long[] version3) {
    TestFragments.createTable(uri);
    LanceTestTables.appendFragments(uri, TestFragments.write(uri, version2));
    LanceTestTables.appendFragments(uri, TestFragments.write(uri, version3));
  }

  private static LanceSplit added(int fragmentId, long version) {
    return LanceSplit.of(SplitKind.ADDED, fragmentId, version, 0);
  }

  @Test
  void readsEachSplitAtItsVersion() throws Exception {
    try (LanceSplitReader reader = reader()) {
      assertThat(read(reader, added(0, 2))).containsExactly(1L, 2L);
      assertThat(read(reader, added(1, 3))).containsExactly(3L);
    }
  }

  @Test
  void aTableReplacedBetweenTwoVersionsEndsTheRead() throws Exception {
    try (LanceSplitReader reader = reader()) {
      assertThat(read(reader, added(0, 2))).containsExactly(1L, 2L);
      TestFiles.deleteRecursively(Path.of(uri));
      writeTable(new long[] {10, 20}, new long[] {30}); // the same versions and fragments
      assertThatThrownBy(() -> read(reader, added(1, 3)))
          .isInstanceOf(PermanentDatasetException.class)
          .hasMessageContaining(uri)
          .hasMessageContaining("the table was replaced while this job was reading it")
          .hasMessageContaining("version 2 was committed at");
    }
  }

  private LanceSplitReader reader() {
    return readers.open(scan);
  }

  /** The ids of the rows of {@code split}, read to its end. */
  private static List<Long> read(LanceSplitReader reader, LanceSplit split) throws Exception {
    reader.handleSplitsChanges(new SplitsAddition<>(List.of(split)));
    List<Long> ids = new ArrayList<>();
    while (true) {
      RecordsWithSplitIds<RowData> records = reader.fetch();
      try {
        while (records.nextSplit() != null) {
          for (RowData row = records.nextRecordFromSplit();
              row != null;
              row = records.nextRecordFromSplit()) {
            ids.add(row.getLong(0));
          }
        }
        if (records.finishedSplits().contains(split.splitId())) {
          return ids;
        }
      } finally {
        records.recycle();
      }
    }
  }
}
