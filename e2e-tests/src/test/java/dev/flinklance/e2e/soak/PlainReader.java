package dev.flinklance.e2e.soak;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.lance.Dataset;
import org.lance.ReadOptions;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/**
 * A plain lance-core reader, as another application would query the tables while the jobs write,
 * compact and clean them up: in a loop, each query opens the latest version, counts its rows and
 * scans the rows of a small key range. Keeps the latencies and failures of the queries since the
 * last {@link #drain}.
 */
final class PlainReader implements Runnable {
  /** Query latencies and failures over an interval. */
  record Stats(int queries, long maxMillis, long meanMillis, List<String> failures) {}

  private final List<TableProbe> tables;
  private final BufferAllocator allocator;
  private volatile boolean running = true;
  private int queries;
  private long totalMillis;
  private long maxMillis;
  private final List<String> failures = new ArrayList<>();
  private final List<String> allFailures = new ArrayList<>();

  PlainReader(List<TableProbe> tables, BufferAllocator allocator) {
    this.tables = tables;
    this.allocator = allocator;
  }

  @Override
  public void run() {
    while (running) {
      for (TableProbe table : tables) {
        long start = System.nanoTime();
        try {
          query(table);
          record((System.nanoTime() - start) / 1_000_000, null);
        } catch (RuntimeException e) {
          record((System.nanoTime() - start) / 1_000_000, table.name() + ": " + e);
        }
      }
      try {
        Thread.sleep(500);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  void stop() {
    running = false;
  }

  synchronized Stats drain() {
    Stats stats =
        new Stats(
            queries, maxMillis, queries == 0 ? 0 : totalMillis / queries, List.copyOf(failures));
    queries = 0;
    totalMillis = 0;
    maxMillis = 0;
    failures.clear();
    return stats;
  }

  synchronized List<String> allFailures() {
    return List.copyOf(allFailures);
  }

  private synchronized void record(long millis, String failure) {
    queries++;
    totalMillis += millis;
    maxMillis = Math.max(maxMillis, millis);
    if (failure != null) {
      failures.add(failure);
      allFailures.add(failure);
    }
  }

  private void query(TableProbe table) {
    if (!table.exists()) {
      return; // not created yet
    }
    try (Dataset dataset =
        Dataset.open()
            .allocator(allocator)
            .uri(table.uri())
            .readOptions(
                new ReadOptions.Builder().setStorageOptions(table.storageOptions()).build())
            .build()) {
      dataset.countRows();
      try (LanceScanner scanner =
              dataset.newScan(
                  new ScanOptions.Builder().columns(List.of("id")).filter("id < 100").build());
          ArrowReader reader = scanner.scanBatches()) {
        while (reader.loadNextBatch()) {
          reader.getVectorSchemaRoot().getRowCount();
        }
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (Exception e) {
      throw e instanceof RuntimeException r ? r : new IllegalStateException(e);
    }
  }
}
