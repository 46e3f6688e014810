package dev.flinklance.arrow.write;

import dev.flinklance.arrow.InvalidValueException;
import dev.flinklance.arrow.SchemaMismatchException;
import java.util.List;
import java.util.function.BiFunction;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * Appends Flink rows to an Arrow batch laid out in the table's schema. Columns are matched by name,
 * so the stream may order its fields differently from the table. Building one checks that the
 * stream's schema can be written to the table at all.
 */
@Internal
public final class ArrowBatchWriter implements AutoCloseable {
  /** Rows the first batch has room for; vectors grow by doubling from here. */
  private static final int INITIAL_CAPACITY = 1024;

  private final VectorSchemaRoot root;
  private final RowConversion conversion;
  private int rowCount;
  private int knownCapacity;

  /** Rows the next batch is allocated for, with the bytes a value of each column took. */
  private int nextRows = INITIAL_CAPACITY;

  /** The batch is full and may not grow: {@link #nextRowWouldOutgrow} said so. */
  private boolean endedFull;

  /** Rows of the batch sealed last. */
  private int lastRows;

  /** Bytes the values of a row of the batch sealed last took, every column's buffers together. */
  private double bytesPerRow;

  private final double[] bytesPerValue;

  /** The top-level variable-width vectors, whose values can outgrow their data buffer. */
  private final List<BaseVariableWidthVector> variableWidth;

  private ArrowBatchWriter(VectorSchemaRoot root, RowConversion conversion) {
    this.root = root;
    this.conversion = conversion;
    this.bytesPerValue = new double[root.getFieldVectors().size()];
    this.variableWidth =
        root.getFieldVectors().stream()
            .filter(BaseVariableWidthVector.class::isInstance)
            .map(BaseVariableWidthVector.class::cast)
            .toList();
  }

  /**
   * @throws SchemaMismatchException naming the first column the table cannot take
   */
  public static ArrowBatchWriter create(
      RowType streamType, Schema tableSchema, BufferAllocator allocator) {
    return create(streamType, tableSchema, allocator, ConversionCompiler::create);
  }

  /**
   * As {@link #create(RowType, Schema, BufferAllocator)}, with the row conversion {@code
   * conversions} builds from the column writers and their stream positions (tests compare the
   * generated one with the interpreted one).
   */
  static ArrowBatchWriter create(
      RowType streamType,
      Schema tableSchema,
      BufferAllocator allocator,
      BiFunction<FieldWriter<?>[], int[], RowConversion> conversions) {
    List<Field> tableColumns = tableSchema.getFields();
    int[] positions = FieldWriters.matchByName("", streamType, tableColumns);
    VectorSchemaRoot root = VectorSchemaRoot.create(tableSchema, allocator);
    try {
      FieldWriter<?>[] writers = new FieldWriter<?>[positions.length];
      List<FieldVector> vectors = root.getFieldVectors();
      for (int i = 0; i < positions.length; i++) {
        writers[i] =
            FieldWriters.forColumn(
                tableColumns.get(i).getName(), streamType, positions[i], vectors.get(i));
      }
      ArrowBatchWriter batch = new ArrowBatchWriter(root, conversions.apply(writers, positions));
      batch.allocate();
      return batch;
    } catch (RuntimeException e) {
      root.close();
      throw e;
    }
  }

  /**
   * Appends one row. A row that fails is not counted; whatever it left in the vectors sits at the
   * position the next row overwrites (every column writes a value or a null at that position), so
   * the batch stays valid.
   *
   * @throws InvalidValueException if a value cannot be stored
   */
  public void write(RowData row) {
    conversion.write(row, rowCount);
    rowCount++;
  }

  public int rowCount() {
    return rowCount;
  }

  /**
   * True if the next row may make the batch's vectors grow (Arrow doubles their buffers) and the
   * grown batch could reach {@code limitBytes}: the vectors have no room for another row, or a
   * top-level variable-width column's data buffer has none for twice the bytes its values took on
   * average. Checking before the growth, not after, keeps a batch under its memory limit without
   * the room a last growth leaves unused (a batch held until a checkpoint would keep it). A larger
   * value, or nested variable-width data, may still grow the batch past the limit: the caller's
   * backstop.
   */
  public boolean nextRowWouldOutgrow(long allocatedBytes, long limitBytes) {
    if (rowCount == 0 || allocatedBytes * 2 < limitBytes) {
      return false; // doubling every buffer stays below the limit
    }
    if (rowCount >= knownCapacity) {
      growOffsetsBesideRoomyData();
      knownCapacity = capacity(); // vectors only grow: below the capacity seen there is room
      long growth = rowCount < knownCapacity ? 0 : growthForAnotherRow();
      endedFull = growth < 0 || allocatedBytes + growth >= limitBytes;
      if (endedFull) {
        return true;
      }
    }
    for (BaseVariableWidthVector vector : variableWidth) {
      if (!dataHasRoom(vector)) {
        return true;
      }
    }
    return false;
  }

  /**
   * A variable-width vector out of offsets for another row while its data buffer has room: Arrow's
   * growth would double the data buffer too, which ends the batch at its limit with that buffer
   * part empty. Only its offsets and validity bits (a few bytes a row) grow. Nothing caches their
   * addresses: the string copier reads them per value.
   */
  private void growOffsetsBesideRoomyData() {
    for (BaseVariableWidthVector vector : variableWidth) {
      if (vector.getValueCapacity() <= rowCount && dataHasRoom(vector)) {
        vector.reallocValidityAndOffsetBuffers();
      }
    }
  }

  /**
   * Bytes the vectors out of room for another row add when they grow, or -1 if that is not known: a
   * fixed-width vector doubles its own buffers; a variable-width one also its data (whose room ran
   * out, or its offsets would have grown alone), a nested one its children.
   */
  private long growthForAnotherRow() {
    long growth = 0;
    for (FieldVector vector : root.getFieldVectors()) {
      if (vector.getValueCapacity() > rowCount) {
        continue;
      }
      if (!(vector instanceof BaseFixedWidthVector fixed)) {
        return -1;
      }
      growth += fixed.getValidityBuffer().capacity() + fixed.getDataBuffer().capacity();
    }
    return growth;
  }

  /** Room in the data buffer for twice the bytes of an average value so far. */
  private boolean dataHasRoom(BaseVariableWidthVector vector) {
    long used = vector.getStartOffset(rowCount);
    return vector.getDataBuffer().capacity() - used >= 2 * used / rowCount;
  }

  /** Rows every top-level vector has room for without growing. */
  private int capacity() {
    int capacity = Integer.MAX_VALUE;
    for (FieldVector vector : root.getFieldVectors()) {
      capacity = Math.min(capacity, vector.getValueCapacity());
    }
    return capacity;
  }

  /** The batch with its row count set, ready to hand to Lance. Valid until {@link #reset}. */
  public VectorSchemaRoot seal() {
    root.setRowCount(rowCount);
    sizeNextBatch();
    conversion.forgetRoom(); // the buffers go to Lance
    return root;
  }

  /**
   * Sizes the next batch from this one, so that it does not double its way up from {@link
   * #INITIAL_CAPACITY} (every doubling a fresh allocation, a copy and zeroed memory: a quarter of
   * the writer's time on vector rows). A batch that ended full at its memory limit may be followed
   * by one allocated at its row count, which fills without growing ({@link #reset}). Any other
   * (ended by its variable-width data, or by a checkpoint) at half its rows, so that the next grows
   * at most once, and at most as many rows as take half the limit at this batch's bytes per row: a
   * fixed number of rows of large values (documents, images) would be allocated far beyond the
   * limit and end after one row.
   */
  private void sizeNextBatch() {
    if (rowCount == 0) {
      return;
    }
    lastRows = rowCount;
    nextRows = Math.max(INITIAL_CAPACITY, rowCount / 2);
    long usedBytes = 0;
    List<FieldVector> vectors = root.getFieldVectors();
    for (int i = 0; i < vectors.size(); i++) {
      FieldVector vector = vectors.get(i);
      usedBytes += vector.getBufferSize();
      if (vector instanceof BaseVariableWidthVector variable) {
        bytesPerValue[i] = Math.max(1, variable.getStartOffset(rowCount) / (double) rowCount);
      }
    }
    bytesPerRow = usedBytes / (double) rowCount;
  }

  /**
   * Releases the batch's buffers and starts an empty one sized from the batch sealed last. Arrow
   * vectors otherwise re-allocate the capacity they last reached, so a batch flushed for being full
   * would start the next one already full.
   *
   * @param limitBytes the memory limit of a batch, as given to {@link #nextRowWouldOutgrow}
   * @param roomForFullSize whether memory beside what the sealed batches still hold allows a batch
   *     as large as the last one: then a batch that ended full is followed by one of its rows
   */
  public void reset(long limitBytes, boolean roomForFullSize) {
    root.clear();
    conversion.forgetRoom();
    if (endedFull && roomForFullSize) {
      nextRows = lastRows; // they filled the batch's room exactly
    } else if (bytesPerRow > 0) {
      nextRows = (int) Math.max(1, Math.min(nextRows, limitBytes / 2 / bytesPerRow));
    }
    allocate();
    rowCount = 0;
    knownCapacity = 0;
    endedFull = false;
  }

  private void allocate() {
    List<FieldVector> vectors = root.getFieldVectors();
    for (int i = 0; i < vectors.size(); i++) {
      FieldVector vector = vectors.get(i);
      if (vector instanceof BaseFixedWidthVector fixed && !(vector instanceof BitVector)) {
        allocateUnzeroed(fixed, nextRows);
      } else {
        if (vector instanceof BaseVariableWidthVector variable && bytesPerValue[i] > 0) {
          variable.setInitialCapacity(nextRows, bytesPerValue[i]);
        } else {
          vector.setInitialCapacity(nextRows);
        }
        vector.allocateNew();
      }
    }
  }

  /**
   * Allocates a fixed-width vector for {@code rows} with its validity bits cleared but its values
   * left as {@code malloc} gave them: every slot written gets its value, a null slot zeros (see
   * {@link LeafWriter#setNull}), so zeroing them first (as Arrow's {@code allocateNew} does) only
   * touched each page one more time. Arrow loads a node of all nulls with a fresh, zeroed validity
   * buffer and keeps the data buffer it is given.
   */
  private static void allocateUnzeroed(BaseFixedWidthVector vector, int rows) {
    BufferAllocator allocator = vector.getAllocator();
    try (ArrowBuf values = allocator.buffer((long) rows * vector.getTypeWidth())) {
      vector.loadFieldBuffers(
          new ArrowFieldNode(rows, rows), List.of(allocator.getEmpty(), values));
    }
    vector.setValueCount(0);
  }

  @Override
  public void close() {
    root.close();
  }
}
