package dev.flinklance.source.reader;

import static dev.flinklance.source.testing.SourceTable.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.errors.PermanentDatasetException;
import dev.flinklance.source.LanceSourceBuilder;
import dev.flinklance.source.SourceScans;
import dev.flinklance.source.split.LanceSplit;
import dev.flinklance.source.split.SplitKind;
import dev.flinklance.source.testing.SourceTable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.cleanup.CleanupPolicy;

/**
 * The split reader on real tables: one Arrow batch per fetch, then the split's end; the rows each
 * kind of split reads, as what; a split restored with rows emitted resumes right after them, also
 * when the rows it reads are picked out of a scan of the fragment.
 */
class LanceSplitReaderTest {
  @TempDir Path dir;
  @RegisterExtension final SplitReaders readers = new SplitReaders();
  private SourceTable table;

  /** Version 1 empty; 2: ids 0..19 in fragments 0 (0..9) and 1 (10..19). */
  @BeforeEach
  void createTable() {
    table = SourceTable.create(dir.resolve("t"), false);
    table.append(0, 20, 10);
  }

  @Test
  void eachFetchIsOneArrowBatchThenTheSplitsEnd() throws Exception {
    LanceSplit split = table.added(0, 2);
    try (LanceSplitReader reader = reader(source().batchSize(4))) {
      reader.handleSplitsChanges(new SplitsAddition<>(List.of(split)));
      assertThat(fetch(reader)).isEqualTo(new Fetch(split.splitId(), rows("+I", 0, 4), List.of()));
      assertThat(fetch(reader)).isEqualTo(new Fetch(split.splitId(), rows("+I", 4, 8), List.of()));
      assertThat(fetch(reader)).isEqualTo(new Fetch(split.splitId(), rows("+I", 8, 10), List.of()));
      assertThat(fetch(reader)).isEqualTo(new Fetch(null, List.of(), List.of(split.splitId())));
      assertThat(fetch(reader))
          .as("nothing assigned")
          .isEqualTo(new Fetch(null, List.of(), List.of()));
    }
  }

  /**
   * The rows a version deleted (read at the version before), every row of a fragment it removed,
   * and the rows of a fragment it added; in an append-only read as -D and +I alike.
   */
  @Test
  void eachKindOfSplitReadsItsRows() throws Exception {
    table.delete("id < 3"); // 3: rows of fragment 0
    table.delete("id >= 10"); // 4: fragment 1 removed
    table.append(20, 25, 10); // 5: fragment 2
    try (LanceSplitReader reader = reader(source())) {
      assertThat(read(reader, table.split(SplitKind.DELETED_ROWS, 0, 3)))
          .isEqualTo(rows("-D", 0, 3));
      assertThat(read(reader, table.split(SplitKind.REMOVED, 1, 4))).isEqualTo(rows("-D", 10, 20));
      assertThat(read(reader, table.added(2, 5))).isEqualTo(rows("+I", 20, 25));
      assertThat(read(reader, table.split(SplitKind.SNAPSHOT, 0, 5))).isEqualTo(rows("+I", 3, 10));
    }
  }

  /** A changelog read pairs a version's removed and added rows by the key: -U and +U. */
  @Test
  void aChangelogReadPairsUpdatesByTheKey() throws Exception {
    table.upsert(Map.of(5L, "new-5", 30L, "name-30")); // 3: row 5 of 0, fragment 2
    try (LanceSplitReader reader = reader(source().changelog(true).primaryKey("id"))) {
      assertThat(read(reader, table.split(SplitKind.DELETED_ROWS, 0, 3)))
          .containsExactly("-U[5, name-5]");
      assertThat(read(reader, table.added(2, 3)))
          .containsExactlyInAnyOrder("+U[5, new-5]", "+I[30, name-30]");
    }
  }

  /**
   * Another client's cleanup (Lance's own, as LanceDB or Python run it) removed version 2, which a
   * changelog read pairs the rows version 3 added with: the read fails for good, naming the version
   * and the option that keeps it.
   */
  @Test
  void aVersionAnotherClientCleanedUpFailsNamingTheVersionAndTheOption() {
    table.upsert(Map.of(5L, "new-5")); // 3: fragment 2
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open().allocator(allocator).uri(table.uri()).build()) {
      dataset.cleanupWithPolicy(CleanupPolicy.builder().withBeforeVersion(3L).build());
    }
    assertThatThrownBy(
            () -> {
              try (LanceSplitReader reader = reader(source().changelog(true).primaryKey("id"))) {
                read(reader, table.added(2, 3));
              }
            })
        .isInstanceOf(PermanentDatasetException.class)
        .hasMessageStartingWith(
            "Lance table '"
                + table.uri()
                + "': cannot open version 2: the version no longer exists (cleaned up?); register"
                + " the read as a consumer ('scan.consumer-id')");
  }

  /** Rows named in the scan's filter resume by Lance's offset, after those emitted. */
  @Test
  void aRestoredSplitResumesAfterTheRowsEmitted() throws Exception {
    table.delete("id < 3 OR id = 7"); // 3
    try (LanceSplitReader reader = reader(source().batchSize(4))) {
      assertThat(read(reader, table.added(1, 2).withRowsEmitted(6))).isEqualTo(rows("+I", 16, 20));
      assertThat(read(reader, table.split(SplitKind.DELETED_ROWS, 0, 3).withRowsEmitted(2)))
          .containsExactly("-D[2, name-2]", "-D[7, name-7]");
    }
  }

  /**
   * Deleted rows too many to name in a filter ({@value DeletedRows#MAX_NAMED}) are picked out of a
   * scan of the whole fragment: a restored split skips the picked rows it emitted before.
   */
  @Test
  void aRestoredSplitOfManyDeletedRowsSkipsThePickedRowsEmitted() throws Exception {
    table = SourceTable.create(dir.resolve("large"), false);
    table.append(0, 10_000, 10_000); // 2: fragment 0
    table.delete("id % 2 = 0"); // 3: 5,000 rows
    try (LanceSplitReader reader = reader(source().batchSize(1024))) {
      assertThat(read(reader, table.split(SplitKind.DELETED_ROWS, 0, 3).withRowsEmitted(2_000)))
          .isEqualTo(
              LongStream.range(4_000, 10_000)
                  .filter(id -> id % 2 == 0)
                  .mapToObj(id -> "-D[" + id + ", name-" + id + "]")
                  .toList());
    }
  }

  /** One fetch's split, rows and finished splits. */
  private record Fetch(String split, List<String> rows, List<String> finished) {}

  private static Fetch fetch(LanceSplitReader reader) throws Exception {
    RecordsWithSplitIds<RowData> records = reader.fetch();
    try {
      String split = records.nextSplit();
      List<String> rows = new ArrayList<>();
      if (split != null) {
        for (RowData row = records.nextRecordFromSplit();
            row != null;
            row = records.nextRecordFromSplit()) {
          rows.add(format(row));
        }
        assertThat(records.nextSplit()).as("one split per fetch").isNull();
      }
      return new Fetch(split, rows, List.copyOf(records.finishedSplits()));
    } finally {
      records.recycle();
    }
  }

  /** The rows of {@code split}, read to its end. */
  private static List<String> read(LanceSplitReader reader, LanceSplit split) throws Exception {
    reader.handleSplitsChanges(new SplitsAddition<>(List.of(split)));
    List<String> rows = new ArrayList<>();
    for (Fetch fetch = fetch(reader); ; fetch = fetch(reader)) {
      rows.addAll(fetch.rows());
      if (fetch.finished().contains(split.splitId())) {
        return rows;
      }
    }
  }

  private LanceSourceBuilder source() {
    return table.source().streaming();
  }

  private LanceSplitReader reader(LanceSourceBuilder source) {
    return readers.open(SourceScans.of(source));
  }

  private static String format(RowData row) {
    return row.getRowKind().shortString() + "[" + row.getLong(0) + ", " + row.getString(1) + "]";
  }
}
