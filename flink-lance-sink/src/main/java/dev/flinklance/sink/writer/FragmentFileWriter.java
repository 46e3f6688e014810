package dev.flinklance.sink.writer;

import dev.flinklance.dataset.LanceDataset;
import dev.flinklance.dataset.LanceDatasetException;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.lance.Fragment;
import org.lance.FragmentMetadata;

/**
 * Writes an Arrow batch as new fragment files of the table without committing them. The file format
 * version is the table's own: Lance's fragment writer does not inherit it, and a 2.1 file cannot
 * hold what a 2.2 table allows (MAP columns).
 */
final class FragmentFileWriter {
  private final LanceDataset table;
  private final BufferAllocator allocator;
  private final String dataStorageVersion;
  private final int maxRowsPerFile;

  FragmentFileWriter(
      LanceDataset table, BufferAllocator allocator, String dataStorageVersion, int maxRowsPerFile) {
    this.table = table;
    this.allocator = allocator;
    this.dataStorageVersion = dataStorageVersion;
    this.maxRowsPerFile = maxRowsPerFile;
  }

  List<FragmentMetadata> write(VectorSchemaRoot batch) {
    try {
      return Fragment.write()
          .datasetUri(table.uri())
          .allocator(allocator)
          .data(batch)
          .storageOptions(table.storageOptions())
          .dataStorageVersion(dataStorageVersion)
          .maxRowsPerFile(maxRowsPerFile)
          .execute();
    } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
      throw new LanceDatasetException(
          table.uri(), "cannot write a fragment file of " + batch.getRowCount() + " rows", e);
    }
  }
}
