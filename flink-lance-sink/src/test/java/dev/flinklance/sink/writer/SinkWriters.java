package dev.flinklance.sink.writer;

import dev.flinklance.sink.LanceSinkBuilder;
import dev.flinklance.sink.compat.Committables;
import dev.flinklance.sink.testing.CommittableOutput;
import dev.flinklance.testing.LanceTestTables;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableSummary;
import org.apache.flink.streaming.api.connector.sink2.CommittableWithLineage;
import org.apache.flink.streaming.runtime.operators.sink.SinkWriterOperatorFactory;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.table.data.RowData;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/**
 * A sink's writer in Flink's own sink writer operator ({@link SinkWriterOperatorFactory}) on the
 * operator test harness, as one writer subtask of a job, and what it hands on at each checkpoint:
 * {@code prepareSnapshotPreBarrier(n)} is checkpoint n's barrier, {@code endInput()} the end of a
 * bounded input (whose results Flink numbers as the checkpoint after the last barrier).
 */
final class SinkWriters {
  private SinkWriters() {}

  static OneInputStreamOperatorTestHarness<RowData, CommittableMessage<LanceWriteResult>> open(
      LanceSinkBuilder<RowData> sink, OperatorSubtaskState restored) throws Exception {
    var harness =
        new OneInputStreamOperatorTestHarness<RowData, CommittableMessage<LanceWriteResult>>(
            new SinkWriterOperatorFactory<>(sink.build()));
    CommittableOutput.setUp(harness, LanceWriteResultSerializer::new);
    harness.initializeState(restored);
    harness.open();
    return harness;
  }

  /** What the writer handed on for a checkpoint, after checking that its summary counts them. */
  static List<LanceWriteResult> results(
      OneInputStreamOperatorTestHarness<RowData, CommittableMessage<LanceWriteResult>> writer,
      long checkpoint) {
    List<LanceWriteResult> results = new ArrayList<>();
    int summarised = -1;
    for (CommittableMessage<LanceWriteResult> message : writer.extractOutputValues()) {
      if (Committables.checkpointId(message) != checkpoint) {
        continue;
      }
      if (message instanceof CommittableSummary<LanceWriteResult> summary) {
        summarised = summary.getNumberOfCommittables();
      } else {
        results.add(((CommittableWithLineage<LanceWriteResult>) message).getCommittable());
      }
    }
    if (summarised != results.size()) {
      throw new AssertionError(
          "checkpoint " + checkpoint + ": a summary of " + summarised + " for " + results);
    }
    return results;
  }

  /**
   * The rows of fragment files the writer wrote, committed as a plain Append (Lance reads no
   * fragment before a commit) and read back by Lance, in the order of the files and of the rows in
   * each: the values of {@code columns} joined by ":".
   */
  static List<String> rows(String table, List<FragmentMetadata> fragments, String... columns) {
    LanceTestTables.appendFragments(table, fragments);
    List<String> rows = new ArrayList<>();
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open(table, allocator)) {
      List<Fragment> all = dataset.getFragments();
      for (Fragment fragment : all.subList(all.size() - fragments.size(), all.size())) {
        try (LanceScanner scanner =
                fragment.newScan(new ScanOptions.Builder().columns(List.of(columns)).build());
            ArrowReader reader = scanner.scanBatches()) {
          while (reader.loadNextBatch()) {
            VectorSchemaRoot root = reader.getVectorSchemaRoot();
            for (int i = 0; i < root.getRowCount(); i++) {
              StringJoiner row = new StringJoiner(":");
              for (String column : columns) {
                row.add(String.valueOf(root.getVector(column).getObject(i)));
              }
              rows.add(row.toString());
            }
          }
        }
      }
    } catch (Exception e) { // the scanner's close throws Exception
      throw new IllegalStateException("cannot read the fragments written to " + table, e);
    }
    return rows;
  }
}
