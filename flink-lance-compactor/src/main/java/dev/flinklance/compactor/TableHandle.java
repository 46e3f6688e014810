package dev.flinklance.compactor;

import dev.flinklance.access.TableRef;
import dev.flinklance.arrow.Allocators;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.annotation.Internal;
import org.lance.Dataset;

/**
 * One operator's open Lance table: opened on first use, moved between versions instead of being
 * reopened, dropped after a failure. Used from one thread at a time (the operator's background
 * thread).
 */
@Internal
public final class TableHandle implements AutoCloseable {
  private final TableRef table;
  private BufferAllocator allocator;
  private Dataset dataset;

  public TableHandle(TableRef table) {
    this.table = table;
  }

  /** The newest version, or empty while there is no table. */
  public Optional<Dataset> latestIfExists() {
    if (dataset == null) {
      dataset = table.openIfExists(allocator()).orElse(null);
    } else {
      dataset.checkoutLatest();
    }
    return Optional.ofNullable(dataset);
  }

  /** The newest version. */
  public Dataset latest() {
    return latestIfExists()
        .orElseThrow(() -> new IllegalStateException("Lance table '" + table + "' is gone"));
  }

  /** The table at {@code version}. */
  public Dataset at(long version) {
    if (dataset != null && dataset.version() != version) {
      reset();
    }
    if (dataset == null) {
      try (Dataset latest = table.open(allocator())) {
        dataset = latest.checkoutVersion(version);
      }
    }
    return dataset;
  }

  private BufferAllocator allocator() {
    if (allocator == null) {
      allocator = new RootAllocator();
    }
    return allocator;
  }

  /** Forgets the open table (after a failure: it is opened afresh next time). */
  public void reset() {
    if (dataset != null) {
      dataset.close();
      dataset = null;
    }
  }

  @Override
  public void close() {
    reset();
    if (allocator != null) {
      Allocators.closeAtEnd(allocator, this);
      allocator = null;
    }
  }
}
