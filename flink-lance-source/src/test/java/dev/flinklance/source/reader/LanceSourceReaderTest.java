package dev.flinklance.source.reader;

import static dev.flinklance.source.testing.SourceTable.rows;
import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.source.LanceScan;
import dev.flinklance.source.SourceScans;
import dev.flinklance.source.enumerator.ReaderEvents;
import dev.flinklance.source.split.LanceSplit;
import dev.flinklance.source.testing.PolledReader;
import dev.flinklance.source.testing.SourceTable;
import dev.flinklance.testing.TestFiles;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The source reader on Flink's testing reader context, polled as the source operator polls it, on a
 * real table: it tells the enumerator what it holds when it starts, counts every emitted row in its
 * split's state, resumes a restored split right after the rows emitted, and says when it has read a
 * split before it asks for the next.
 */
class LanceSourceReaderTest {
  @TempDir Path dir;
  private LanceScan scan;
  private LanceSplit split;

  /** Version 2: ids 0..9 in fragment 0, read in batches of 4. */
  @BeforeEach
  void createTable() {
    SourceTable table = SourceTable.create(dir.resolve("t"), false);
    table.append(0, 10, 10);
    scan = SourceScans.of(table.source().streaming().batchSize(4));
    split = table.added(0, 2);
  }

  @Test
  void aNewReaderSaysItHoldsNothingAndAsksForASplit() throws Exception {
    try (PolledReader reader = PolledReader.start(scan, List.of())) {
      assertThat(reader.events()).containsExactly(new ReaderEvents.Holding(List.of()));
      assertThat(reader.splitRequests()).isEqualTo(1);

      reader.assign(split);
      assertThat(reader.readToEnd()).isEqualTo(rows("+I", 0, 10));
      assertThat(reader.events())
          .containsExactly(
              new ReaderEvents.Holding(List.of()),
              new ReaderEvents.Finished(List.of(split.splitId())));
      assertThat(reader.splitRequests()).as("the next split").isEqualTo(2);
      assertThat(reader.snapshot(1)).isEmpty();
    }
  }

  /**
   * The reader asks for one split at a time and Flink closes its split reader between them: the
   * table stays open all the same, and the second split of a version reads the version opened for
   * the first (here it still reads after another client's cleanup removed every manifest; opened
   * again, the version would be gone).
   */
  @Test
  void theTableStaysOpenFromOneSplitToTheNext() throws Exception {
    SourceTable two = SourceTable.create(dir.resolve("two"), false);
    two.append(0, 20, 10); // version 2: ids 0..9 in fragment 0, 10..19 in fragment 1
    LanceSplit first = two.added(0, 2);
    LanceSplit second = two.added(1, 2);
    try (PolledReader reader = PolledReader.start(SourceScans.of(two.source()), List.of())) {
      reader.assign(first);
      assertThat(reader.readToEnd()).isEqualTo(rows("+I", 0, 10));
      reader.idle();
      TestFiles.deleteRecursively(Path.of(two.uri(), "_versions"));

      reader.assign(second);
      assertThat(reader.readToEnd()).isEqualTo(rows("+I", 10, 20));
      assertThat(reader.finished()).containsExactly(first.splitId(), second.splitId());
    }
  }

  /**
   * Each emitted row counts in the state, mid-batch too; a reader restored from that state says it
   * holds the split, asks for nothing until it has read it, and emits the rows after those.
   */
  @Test
  void aRestoredSplitResumesRightAfterTheRowsEmitted() throws Exception {
    List<LanceSplit> state;
    try (PolledReader reader = PolledReader.start(scan, List.of())) {
      reader.assign(split);
      assertThat(reader.poll(6)).isEqualTo(rows("+I", 0, 6));
      state = reader.snapshot(1);
    }
    assertThat(state).containsExactly(split.withRowsEmitted(6));

    try (PolledReader restored = PolledReader.start(scan, state)) {
      assertThat(restored.events()).containsExactly(new ReaderEvents.Holding(state));
      assertThat(restored.splitRequests()).isZero();
      assertThat(restored.readToEnd()).isEqualTo(rows("+I", 6, 10));
      assertThat(restored.finished()).containsExactly(split.splitId());
      assertThat(restored.splitRequests()).isEqualTo(1);
    }
  }
}
