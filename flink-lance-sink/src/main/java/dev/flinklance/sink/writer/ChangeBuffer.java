package dev.flinklance.sink.writer;

import dev.flinklance.arrow.Allocators;
import dev.flinklance.arrow.write.ArrowBatchWriter;
import dev.flinklance.key.RowKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * One writer's changes since its last checkpoint, collapsed by key. An upserted row goes into an
 * Arrow batch in the table's layout when it arrives (a value the table cannot take fails at its
 * record, as for appends); a map keeps each key's latest change: the position of its row, or a
 * delete. Rows a later change of their key replaced are left out when the batches go to the
 * fragment file, and dropped earlier when they take up much of the buffer.
 */
final class ChangeBuffer implements AutoCloseable {
  private static final long DELETED = -1;

  /**
   * Heap a buffered key takes besides its string characters: map entry, key, value array, boxed
   * values (an estimate for 64-bit JVMs with compressed pointers).
   */
  static final long KEY_OVERHEAD_BYTES = 120;

  private final BufferAllocator allocator;
  private final BufferAllocator fillingAllocator;
  private final Schema tableSchema;
  private final ArrowBatchWriter filling;
  private final List<RowKey> fillingKeys = new ArrayList<>();
  private final List<Batch> sealed = new ArrayList<>();
  private final Map<RowKey, Long> latest = new HashMap<>();
  private final long batchBytes;
  private long keyBytes;
  private long rows;
  private long replacedRows;

  /** A full batch and the key of each of its rows. */
  private record Batch(VectorSchemaRoot root, List<RowKey> keys) {}

  /**
   * @param parent the fragment writer's allocator (batches move to the fragment file without copy)
   * @param batchBytes a batch is sealed at this size
   */
  ChangeBuffer(BufferAllocator parent, RowType rowType, Schema tableSchema, long batchBytes) {
    this.allocator = parent.newChildAllocator("changes", 0, Long.MAX_VALUE);
    this.fillingAllocator = allocator.newChildAllocator("filling", 0, Long.MAX_VALUE);
    this.tableSchema = tableSchema;
    this.batchBytes = batchBytes;
    this.filling = ArrowBatchWriter.create(rowType, tableSchema, fillingAllocator);
  }

  /**
   * The row is now its key's latest change.
   *
   * @throws dev.flinklance.arrow.InvalidValueException if a value cannot be stored; the buffer is
   *     then unchanged
   */
  void upsert(RowKey key, RowData row) {
    if (filling.nextRowWouldOutgrow(fillingAllocator.getAllocatedMemory(), batchBytes)) {
      seal();
    }
    filling.write(row);
    fillingKeys.add(key);
    rows++;
    record(key, position(sealed.size(), filling.rowCount() - 1));
    if (fillingAllocator.getAllocatedMemory() >= batchBytes) {
      seal();
    }
  }

  /** The key's latest change is a delete: the commit removes its row, and no row is written. */
  void delete(RowKey key) {
    record(key, DELETED);
  }

  private void record(RowKey key, long change) {
    Long previous = latest.put(key, change);
    if (previous == null) {
      keyBytes += KEY_OVERHEAD_BYTES + key.toString().length() * 2L;
    } else if (previous != DELETED) {
      replacedRows++;
    }
  }

  /** Keys changed since the last checkpoint. */
  int keys() {
    return latest.size();
  }

  /** Arrow memory of the rows plus an estimate of the keys' heap. */
  long bytes() {
    return allocator.getAllocatedMemory() + keyBytes;
  }

  /**
   * Drops the rows later changes replaced, if they are at least a quarter of the rows (so that
   * repeated compactions cost at most a copy of the buffer per quarter it grows). The batch being
   * filled is copied too: it was allocated for the rows still to come.
   *
   * @return whether it compacted
   */
  boolean compact() {
    if (replacedRows * 4 < rows) {
      return false;
    }
    int filled = filling.rowCount() > 0 ? sealed.size() : -1;
    seal();
    List<Batch> live = new ArrayList<>();
    for (int index = 0; index < sealed.size(); index++) {
      Batch kept = liveRowsOf(index, live.size(), index == filled);
      if (kept.keys().isEmpty()) {
        kept.root().close();
      } else {
        live.add(kept);
      }
    }
    sealed.clear();
    sealed.addAll(live);
    rows -= replacedRows;
    replacedRows = 0;
    return true;
  }

  /**
   * Hands the latest row of every upserted key to {@code out}, in arrival order, and empties the
   * buffer.
   *
   * @return every key changed since the last checkpoint: the keys whose rows the commit removes
   */
  List<RowKey> drainTo(FragmentWriter out) throws InterruptedException {
    seal();
    try {
      for (int index = 0; index < sealed.size(); index++) {
        try (VectorSchemaRoot rowsToWrite = liveRowsOf(index, -1, false).root()) {
          out.send(rowsToWrite);
        }
      }
    } finally {
      // Closing again what was sent or copied is harmless: its vectors are empty.
      sealed.forEach(batch -> batch.root().close());
      sealed.clear();
    }
    List<RowKey> changed = new ArrayList<>(latest.keySet());
    latest.clear();
    keyBytes = 0;
    rows = 0;
    replacedRows = 0;
    return changed;
  }

  /**
   * The rows of sealed batch {@code index} that are their key's latest change: the batch itself
   * when all are, a copy otherwise (the batch is then closed).
   *
   * @param newIndex the batch's index after a compaction, whose positions the map then gets; -1
   *     when draining
   * @param copy whether to copy the rows even if all are live, into memory of their size
   */
  private Batch liveRowsOf(int index, int newIndex, boolean copy) {
    Batch batch = sealed.get(index);
    List<Integer> live = new ArrayList<>();
    for (int row = 0; row < batch.keys().size(); row++) {
      if (latest.get(batch.keys().get(row)) == position(index, row)) {
        live.add(row);
      }
    }
    Batch kept;
    if (live.size() == batch.keys().size() && !copy) {
      kept = batch;
    } else {
      kept = copy(batch, live);
      batch.root().close();
    }
    if (newIndex >= 0) {
      for (int row = 0; row < kept.keys().size(); row++) {
        latest.put(kept.keys().get(row), position(newIndex, row));
      }
    }
    return kept;
  }

  private Batch copy(Batch batch, List<Integer> rowsToKeep) {
    VectorSchemaRoot copy = VectorSchemaRoot.create(tableSchema, allocator);
    List<RowKey> keys = new ArrayList<>(rowsToKeep.size());
    List<FieldVector> from = batch.root().getFieldVectors();
    List<FieldVector> to = copy.getFieldVectors();
    for (int column = 0; column < from.size(); column++) {
      FieldVector target = to.get(column);
      if (from.get(column) instanceof BaseVariableWidthVector values) {
        // room for the kept values' bytes: growing to them would leave up to half unused
        long bytes = 0;
        for (int row : rowsToKeep) {
          bytes += values.getValueLength(row);
        }
        double perValue = bytes / (double) Math.max(1, rowsToKeep.size());
        ((BaseVariableWidthVector) target)
            .setInitialCapacity(rowsToKeep.size(), Math.max(1, perValue));
      } else {
        target.setInitialCapacity(rowsToKeep.size());
      }
      target.allocateNew();
      for (int i = 0; i < rowsToKeep.size(); i++) {
        target.copyFromSafe(rowsToKeep.get(i), i, from.get(column));
      }
      target.setValueCount(rowsToKeep.size());
    }
    for (int row : rowsToKeep) {
      keys.add(batch.keys().get(row));
    }
    copy.setRowCount(rowsToKeep.size());
    return new Batch(copy, keys);
  }

  /** Moves the batch being filled to the sealed ones. */
  private void seal() {
    if (filling.rowCount() == 0) {
      return;
    }
    VectorSchemaRoot root = VectorSchemaRoot.create(tableSchema, allocator);
    VectorSchemaRoot full = filling.seal();
    for (int i = 0; i < root.getFieldVectors().size(); i++) {
      full.getVector(i).makeTransferPair(root.getVector(i)).transfer();
    }
    root.setRowCount(full.getRowCount());
    sealed.add(new Batch(root, List.copyOf(fillingKeys)));
    fillingKeys.clear();
    filling.reset(batchBytes, false); // sealed batches stay until the checkpoint: no room is known
  }

  private static long position(int batch, int row) {
    return ((long) batch << 32) | row;
  }

  @Override
  public void close() {
    sealed.forEach(batch -> batch.root().close());
    sealed.clear();
    filling.close();
    fillingAllocator.close();
    Allocators.closeAtEnd(allocator, "Lance upsert buffer");
  }
}
