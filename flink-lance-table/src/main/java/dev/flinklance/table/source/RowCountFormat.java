package dev.flinklance.table.source;

import dev.flinklance.access.OpenTable;
import dev.flinklance.errors.LanceDatasetException;
import dev.flinklance.source.LanceScan;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.io.GenericInputFormat;
import org.apache.flink.api.common.io.NonParallelInput;
import org.apache.flink.core.io.GenericInputSplit;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.lance.Dataset;

/**
 * {@code SELECT COUNT(*)} answered by Lance ({@code countRows} with the pushed filter, from the
 * fragments' row counts and deletion files when there is no filter) instead of a scan: one row, the
 * count, for Flink's final aggregation to sum. Counted when the job runs, at the version the scan
 * would read.
 */
@Internal
public final class RowCountFormat extends GenericInputFormat<RowData> implements NonParallelInput {
  private static final long serialVersionUID = 1L;

  private final LanceScan scan;
  private transient boolean emitted;

  public RowCountFormat(LanceScan scan) {
    this.scan = scan;
  }

  @Override
  public void open(GenericInputSplit split) throws java.io.IOException {
    super.open(split);
    emitted = false;
  }

  @Override
  public boolean reachedEnd() {
    return emitted;
  }

  @Override
  public RowData nextRecord(RowData reuse) {
    emitted = true;
    return GenericRowData.of(count());
  }

  private long count() {
    try (OpenTable read = OpenTable.at(scan.dataset(), scan.version(), scan.tag())) {
      Dataset dataset = read.dataset();
      return scan.filter() == null ? dataset.countRows() : dataset.countRows(scan.filter());
    } catch (LanceDatasetException e) {
      throw e;
    } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
      throw LanceDatasetException.wrap(scan.dataset().uri(), "cannot count the rows", e);
    }
  }
}
