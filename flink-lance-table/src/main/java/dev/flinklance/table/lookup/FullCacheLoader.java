package dev.flinklance.table.lookup;

import dev.flinklance.concurrent.NativeWorkers;
import dev.flinklance.table.lookup.FullCacheFormat.FragmentSplit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.apache.flink.table.types.logical.RowType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads one version of the table into {@link CachedRows}: {@link FullCacheFormat} plans the load
 * (checking the table is still the one the last load read), and up to one thread per processor
 * reads its fragments, each into pages of its own.
 */
final class FullCacheLoader {
  private static final Logger LOG = LoggerFactory.getLogger(FullCacheLoader.class);

  private final LookupSpec spec;
  private final FullCacheFormat format;
  private final RowType rowType;
  private final int[] keyFields;

  FullCacheLoader(LookupSpec spec) {
    this.spec = spec;
    this.format = new FullCacheFormat(spec);
    this.rowType = spec.producedType();
    this.keyFields = spec.keyColumns().stream().mapToInt(rowType::getFieldIndex).toArray();
  }

  /** The rows of the version the load planned and the version's number. */
  record Loaded(CachedRows rows, long version) {}

  Loaded load() throws Exception {
    FragmentSplit[] splits = format.createInputSplits(1);
    long version = splits[0].version();
    int threads = Math.min(splits.length, Runtime.getRuntime().availableProcessors());
    Queue<FragmentSplit> queue = new ConcurrentLinkedQueue<>(Arrays.asList(splits));
    ExecutorService workers = NativeWorkers.pool("lance-full-cache-load-", threads);
    try {
      List<Future<CachedRows.Builder>> readers = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        readers.add(workers.submit(readSplits(queue)));
      }
      List<CachedRows.Builder> builders = new ArrayList<>();
      for (Future<CachedRows.Builder> reader : readers) {
        builders.add(reader.get());
      }
      return new Loaded(CachedRows.of(rowType, keyFields, builders), version);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    } finally {
      if (!NativeWorkers.stop(workers, NativeWorkers.STOP_WAIT)) {
        LOG.warn("A read of {} for the lookup cache is still running", spec.table().uri());
      }
    }
  }

  /** Reads splits from {@code queue} until it is empty, on one thread. */
  private Callable<CachedRows.Builder> readSplits(Queue<FragmentSplit> queue) {
    return () -> {
      CachedRows.Builder builder = new CachedRows.Builder(rowType, keyFields);
      FullCacheFormat reader = format.splitReader();
      for (FragmentSplit split; (split = queue.poll()) != null; ) {
        reader.open(split);
        try {
          while (!reader.reachedEnd()) {
            if (Thread.currentThread().isInterrupted()) { // another reader failed
              throw new InterruptedException("lookup cache load cancelled");
            }
            builder.add(reader.nextRecord(null));
          }
        } finally {
          reader.close();
        }
      }
      return builder;
    };
  }
}
