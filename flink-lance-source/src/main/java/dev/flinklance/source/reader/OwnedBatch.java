package dev.flinklance.source.reader;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.util.AutoCloseables;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.util.TransferPair;

/**
 * An Arrow batch taken out of Lance's reader: the reader loads every batch into the same vectors,
 * so the fetcher thread moves the buffers (no copy) into vectors of their own before it loads the
 * next batch, while the main thread still emits this one. Dictionaries travel with the batch.
 */
final class OwnedBatch implements AutoCloseable {
  private final VectorSchemaRoot root;
  private final DictionaryProvider.MapDictionaryProvider dictionaries;
  private final Set<OwnedBatch> outstanding;

  private OwnedBatch(
      VectorSchemaRoot root,
      DictionaryProvider.MapDictionaryProvider dictionaries,
      Set<OwnedBatch> outstanding) {
    this.root = root;
    this.dictionaries = dictionaries;
    this.outstanding = outstanding;
    outstanding.add(this);
  }

  /**
   * @param outstanding the batches not yet released; this one is added and removes itself when
   *     closed, so that the split reader can release what is left when the task ends
   */
  static OwnedBatch takeFrom(
      VectorSchemaRoot loaded,
      DictionaryProvider loadedDictionaries,
      BufferAllocator allocator,
      Set<OwnedBatch> outstanding) {
    List<FieldVector> vectors = new ArrayList<>(loaded.getFieldVectors().size());
    for (FieldVector vector : loaded.getFieldVectors()) {
      TransferPair transfer = vector.getTransferPair(allocator);
      transfer.transfer();
      vectors.add((FieldVector) transfer.getTo());
    }
    VectorSchemaRoot root = new VectorSchemaRoot(vectors);
    root.setRowCount(loaded.getRowCount());
    DictionaryProvider.MapDictionaryProvider dictionaries =
        new DictionaryProvider.MapDictionaryProvider();
    for (long id : loadedDictionaries.getDictionaryIds()) {
      Dictionary dictionary = loadedDictionaries.lookup(id);
      FieldVector values = dictionary.getVector();
      TransferPair share = values.getTransferPair(allocator);
      share.splitAndTransfer(0, values.getValueCount()); // shares the buffers, counted
      dictionaries.put(new Dictionary((FieldVector) share.getTo(), dictionary.getEncoding()));
    }
    return new OwnedBatch(root, dictionaries, outstanding);
  }

  VectorSchemaRoot root() {
    return root;
  }

  DictionaryProvider dictionaries() {
    return dictionaries;
  }

  @Override
  public void close() throws Exception {
    if (outstanding.remove(this)) {
      AutoCloseables.close(root, dictionaries);
    }
  }
}
