package dev.flinklance.source.reader;

import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.lance.Dataset;
import org.lance.MetadataColumns;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/** Scans of one fragment of one version that look at row addresses and keys, not at values. */
final class FragmentRows {

  /** A consumer of the batches of a scan. */
  interface BatchConsumer {
    void accept(VectorSchemaRoot batch) throws Exception;
  }

  private FragmentRows() {}

  static void scan(Dataset dataset, int fragmentId, ScanOptions options, BatchConsumer consumer)
      throws Exception {
    try (LanceScanner scanner = dataset.getFragment(fragmentId).newScan(options);
        ArrowReader reader = scanner.scanBatches()) {
      while (reader.loadNextBatch()) {
        consumer.accept(reader.getVectorSchemaRoot());
      }
    }
  }

  static BaseIntVector rowAddresses(VectorSchemaRoot batch) {
    return (BaseIntVector) batch.getVector(MetadataColumns.ROWADDR);
  }

  /** A row's position in its fragment: the low 32 bits of its address. */
  static int offset(long rowAddress) {
    return (int) rowAddress;
  }
}
