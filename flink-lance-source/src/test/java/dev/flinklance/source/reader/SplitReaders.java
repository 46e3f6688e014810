package dev.flinklance.source.reader;

import dev.flinklance.source.LanceScan;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Split readers as a source reader makes them, each with a {@link ReaderTable} of its own (the
 * source reader's role): the tables are closed after each test, after the readers.
 */
final class SplitReaders implements AfterEachCallback {
  private final List<ReaderTable> tables = new ArrayList<>();

  LanceSplitReader open(LanceScan scan) {
    ReaderTable table = new ReaderTable(scan);
    tables.add(table);
    return new LanceSplitReader(
        scan, new ReaderMetrics(UnregisteredMetricsGroup.createSourceReaderMetricGroup()), table);
  }

  @Override
  public void afterEach(ExtensionContext context) {
    tables.forEach(ReaderTable::close);
    tables.clear();
  }
}
