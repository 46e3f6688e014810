package dev.flinklance.arrow.write;

import org.apache.flink.table.data.RowData;

/** Each column through its writer, in turn. */
final class InterpretedConversion implements RowConversion {
  private final FieldWriter<?>[] writers;
  private final int[] positions;
  private final ValueReader record = new ValueReader();

  /**
   * @param positions for each writer, the position of its field in the stream's rows
   */
  InterpretedConversion(FieldWriter<?>[] writers, int[] positions) {
    this.writers = writers;
    this.positions = positions;
  }

  @Override
  public void write(RowData row, int index) {
    record.pointTo(row);
    for (int i = 0; i < writers.length; i++) {
      if (positions[i] == FieldWriters.ABSENT) {
        writers[i].writeNull(index);
      } else {
        writers[i].write(record, positions[i], index);
      }
    }
  }

  @Override
  public void forgetRoom() {
    for (FieldWriter<?> writer : writers) {
      writer.forgetRoom();
    }
  }
}
