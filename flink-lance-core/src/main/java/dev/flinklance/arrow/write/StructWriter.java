package dev.flinklance.arrow.write;

import java.util.List;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.flink.table.data.RowData;

/** ROW into an Arrow Struct; children are matched to the row's fields by name. */
final class StructWriter extends FieldWriter<StructVector> {
  private final int arity;
  private final List<FieldWriter<?>> childWriters;
  private final int[] childPositions;
  private final ValueReader fields = new ValueReader();

  /**
   * @param childPositions for each child writer, the position of its field in the Flink row, or
   *     {@link FieldWriters#ABSENT} for a nullable field the row lacks
   */
  StructWriter(
      StructVector vector,
      String path,
      int arity,
      List<FieldWriter<?>> childWriters,
      int[] childPositions) {
    super(vector, path);
    this.arity = arity;
    this.childWriters = childWriters;
    this.childPositions = childPositions;
  }

  @Override
  void writeValue(ValueReader source, int pos, int index) {
    RowData row = source.getRow(pos, arity);
    vector.setIndexDefined(index);
    fields.pointTo(row);
    for (int i = 0; i < childWriters.size(); i++) {
      if (childPositions[i] == FieldWriters.ABSENT) {
        childWriters.get(i).writeNull(index);
      } else {
        childWriters.get(i).write(fields, childPositions[i], index);
      }
    }
  }

  @Override
  void setNull(int index) {
    vector.setNull(index);
    fillChildren(index);
  }

  @Override
  void setPlaceholder(int index) {
    vector.setIndexDefined(index);
    fillChildren(index);
  }

  @Override
  void forgetRoom() {
    childWriters.forEach(FieldWriter::forgetRoom);
  }

  /** Every child vector keeps a slot per row, whatever the struct holds. */
  private void fillChildren(int index) {
    for (FieldWriter<?> child : childWriters) {
      child.writeAbsent(index);
    }
  }
}
