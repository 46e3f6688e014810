package dev.flinklance.source.testing;

import dev.flinklance.source.LanceScan;
import dev.flinklance.source.enumerator.ReaderEvents;
import dev.flinklance.source.reader.LanceSourceReader;
import dev.flinklance.source.split.LanceSplit;
import dev.flinklance.testing.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.connector.testutils.source.reader.TestingReaderContext;
import org.apache.flink.connector.testutils.source.reader.TestingReaderOutput;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * A {@link LanceSourceReader} on Flink's {@link TestingReaderContext}, polled by the test as the
 * source operator polls it, one row per poll: what it emits (each row formatted as it comes, as
 * {@code +I[0, name-0]}: rows are views over Arrow buffers that do not last), what it tells the
 * enumerator, and its state.
 */
public final class PolledReader implements AutoCloseable {
  private static final Duration WAIT = Duration.ofSeconds(60);

  private final TestingReaderContext context = new TestingReaderContext();
  private final Formatting output;
  private final LanceSourceReader reader;

  private PolledReader(LanceScan scan, List<LanceSplit> restored) {
    output = new Formatting(scan.rowType());
    reader = new LanceSourceReader(scan, context.getConfiguration(), context);
    if (!restored.isEmpty()) {
      reader.addSplits(restored); // as Flink hands a restored reader its state, before start
    }
    reader.start();
  }

  /** A started reader holding {@code restored}, the splits of its state. */
  public static PolledReader start(LanceScan scan, List<LanceSplit> restored) {
    return new PolledReader(scan, restored);
  }

  /**
   * Every row of {@code splits}, handed to one reader one at a time in this order (as the
   * enumerator hands them out), each read to its end.
   */
  public static List<String> read(LanceScan scan, List<LanceSplit> splits) throws Exception {
    try (PolledReader reader = start(scan, List.of())) {
      return reader.readEach(splits);
    }
  }

  /** Every row of {@code splits}, assigned one at a time in this order, each read to its end. */
  public List<String> readEach(List<LanceSplit> splits) throws Exception {
    List<String> rows = new ArrayList<>();
    for (LanceSplit split : splits) {
      assign(split);
      rows.addAll(readToEnd());
    }
    return rows;
  }

  /** A split the enumerator assigns. */
  public void assign(LanceSplit split) {
    reader.addSplits(List.of(split));
  }

  /** The next {@code count} rows the reader emits. */
  public List<String> poll(int count) throws Exception {
    int from = output.rows.size();
    Await.until(
        count + " rows",
        WAIT,
        () -> {
          while (output.rows.size() - from < count
              && reader.pollNext(output) == InputStatus.MORE_AVAILABLE) {
            // one row per poll, as long as the reader has rows at hand
          }
          return output.rows.size() - from == count;
        },
        () -> "rows so far: " + output.rows.subList(from, output.rows.size()));
    return List.copyOf(output.rows.subList(from, output.rows.size()));
  }

  /** The rows the reader emits until it has told the enumerator that it read every split. */
  public List<String> readToEnd() throws Exception {
    int from = output.rows.size();
    Await.until(
        "every split read",
        WAIT,
        () -> {
          while (reader.getNumberOfCurrentlyAssignedSplits() > 0
              && reader.pollNext(output) == InputStatus.MORE_AVAILABLE) {
            // one row (or the end of a split) per poll, as long as the reader has them at hand
          }
          return reader.getNumberOfCurrentlyAssignedSplits() == 0;
        },
        () -> "rows so far: " + output.rows.subList(from, output.rows.size()));
    return List.copyOf(output.rows.subList(from, output.rows.size()));
  }

  /**
   * Polls with nothing assigned for a while, as the source operator does while it waits for a
   * split: Flink closes the idle split fetcher, and with it the split reader, on such a poll.
   */
  public void idle() throws Exception {
    for (int i = 0; i < 20; i++) {
      reader.pollNext(output);
      Thread.sleep(10);
    }
  }

  public List<LanceSplit> snapshot(long checkpointId) {
    return reader.snapshotState(checkpointId);
  }

  /** What the reader told the enumerator, in order. */
  public List<SourceEvent> events() {
    return context.getSentEvents();
  }

  /** The ids of the splits the reader said it finished, in order. */
  public List<String> finished() {
    return events().stream()
        .filter(ReaderEvents.Finished.class::isInstance)
        .flatMap(event -> ((ReaderEvents.Finished) event).splitIds().stream())
        .toList();
  }

  public int splitRequests() {
    return context.getNumSplitRequests();
  }

  @Override
  public void close() throws Exception {
    reader.close();
  }

  /** Formats each row as it comes; the rows are views that the next batch overwrites. */
  private static final class Formatting extends TestingReaderOutput<RowData> {
    private final List<RowData.FieldGetter> fields = new ArrayList<>();
    private final List<String> rows = new ArrayList<>();

    Formatting(RowType rowType) {
      for (int i = 0; i < rowType.getFieldCount(); i++) {
        fields.add(RowData.createFieldGetter(rowType.getTypeAt(i), i));
      }
    }

    @Override
    public void collect(RowData row) {
      StringJoiner values = new StringJoiner(", ", row.getRowKind().shortString() + "[", "]");
      fields.forEach(field -> values.add(String.valueOf(field.getFieldOrNull(row))));
      rows.add(values.toString());
    }
  }
}
