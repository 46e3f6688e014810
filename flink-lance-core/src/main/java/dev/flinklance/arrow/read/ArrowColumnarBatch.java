package dev.flinklance.arrow.read;

import java.util.List;
import java.util.Set;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.columnar.ColumnarRowData;
import org.apache.flink.table.data.columnar.vector.ColumnVector;
import org.apache.flink.table.data.columnar.vector.VectorizedColumnBatch;

/**
 * Flink rows over an Arrow batch, without copying it: each row is a {@link ColumnarRowData} view
 * that reads the Arrow buffers when a field is asked for. Only strings, binaries, decimals wider
 * than 18 digits and nested values allocate per value. The views are valid while the batch's
 * vectors are open; {@link #row(int)} reuses one view object, as Flink's columnar file readers do
 * (downstream operators copy a record they keep).
 */
@Internal
public final class ArrowColumnarBatch {
  /** A column of NULLs: Flink asks whether a value is NULL before it reads one. */
  private static final ColumnVector NULLS = row -> true;

  private final VectorizedColumnBatch batch;
  private final ColumnarRowData row;

  private ArrowColumnarBatch(VectorizedColumnBatch batch) {
    this.batch = batch;
    this.row = new ColumnarRowData(batch);
  }

  /**
   * A view of the batch {@code root} holds now: make one per loaded batch (views remember what they
   * asked of its vectors once, such as whether array elements hold NULLs).
   *
   * @param columns the columns of the produced rows, in their order; each must be in {@code root}
   * @param dictionaries resolves dictionary-encoded columns (the reader that produced the batch)
   * @throws UnsupportedArrowTypeException naming a column without a Flink type
   */
  public static ArrowColumnarBatch of(
      VectorSchemaRoot root, List<String> columns, DictionaryProvider dictionaries) {
    return of(root, columns, Set.of(), dictionaries);
  }

  /**
   * As {@link #of(VectorSchemaRoot, List, DictionaryProvider)}, with the columns in {@code absent},
   * which {@code root} does not hold, NULL in every row: the columns a table version read did not
   * have yet.
   */
  public static ArrowColumnarBatch of(
      VectorSchemaRoot root,
      List<String> columns,
      Set<String> absent,
      DictionaryProvider dictionaries) {
    ColumnVector[] views = new ColumnVector[columns.size()];
    for (int i = 0; i < views.length; i++) {
      if (absent.contains(columns.get(i))) {
        views[i] = NULLS;
        continue;
      }
      FieldVector vector = root.getVector(columns.get(i));
      if (vector == null) {
        throw new IllegalArgumentException(
            String.format(
                "Column '%s' is missing from the batch; it has %s",
                columns.get(i), root.getSchema().getFields()));
      }
      views[i] = ColumnViews.create(vector, columns.get(i), dictionaries);
    }
    VectorizedColumnBatch batch = new VectorizedColumnBatch(views);
    batch.setNumRows(root.getRowCount());
    return new ArrowColumnarBatch(batch);
  }

  public int rowCount() {
    return batch.getNumRows();
  }

  /** The row at {@code index}: the same view object on every call, pointed at that row. */
  public RowData row(int index) {
    row.setRowId(index);
    return row;
  }
}
