package dev.flinklance.table.lookup;

import dev.flinklance.key.RowKey;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.flink.table.data.RowData;

/**
 * Gathers the keys of concurrent async lookups into batches: while a worker's query runs, the keys
 * that arrive wait, and the next free worker takes up to {@code maxBatch} of them into one query. A
 * single key in flight is looked up at once, alone; under load, queries carry many keys. A key
 * asked for twice in one batch is looked up once.
 */
final class LookupBatcher {
  private final Function<Collection<RowKey>, Map<RowKey, List<RowData>>> lookup;
  private final Executor workers;
  private final int maxWorkers;
  private final int maxBatch;
  private final Queue<Pending> queue = new ConcurrentLinkedQueue<>();
  private final AtomicInteger draining = new AtomicInteger();

  private record Pending(RowKey key, CompletableFuture<Collection<RowData>> result) {}

  /**
   * @param lookup the rows of a batch of keys (a key without rows may be absent)
   * @param maxWorkers how many of the workers' threads take batches at once
   */
  LookupBatcher(
      Function<Collection<RowKey>, Map<RowKey, List<RowData>>> lookup,
      Executor workers,
      int maxWorkers,
      int maxBatch) {
    this.lookup = lookup;
    this.workers = workers;
    this.maxWorkers = maxWorkers;
    this.maxBatch = maxBatch;
  }

  CompletableFuture<Collection<RowData>> submit(RowKey key) {
    Pending pending = new Pending(key, new CompletableFuture<>());
    queue.add(pending);
    startWorkerIfIdle();
    return pending.result();
  }

  private void startWorkerIfIdle() {
    while (!queue.isEmpty()) {
      int running = draining.get();
      if (running >= maxWorkers) {
        return; // a running worker takes the key with its next batch
      }
      if (draining.compareAndSet(running, running + 1)) {
        try {
          workers.execute(this::drain);
        } catch (RejectedExecutionException e) { // the function is closing
          draining.decrementAndGet();
          failAll(e);
        }
        return;
      }
    }
  }

  private void drain() {
    try {
      for (List<Pending> batch = take(); !batch.isEmpty(); batch = take()) {
        run(batch);
      }
    } finally {
      draining.decrementAndGet();
    }
    startWorkerIfIdle(); // a key queued after this worker's last take
  }

  private List<Pending> take() {
    List<Pending> batch = new ArrayList<>();
    Set<RowKey> keys = new HashSet<>();
    for (Pending next; keys.size() < maxBatch && (next = queue.poll()) != null; ) {
      batch.add(next);
      keys.add(next.key());
    }
    return batch;
  }

  private void run(List<Pending> batch) {
    Map<RowKey, List<RowData>> found;
    try {
      found = lookup.apply(batch.stream().map(Pending::key).distinct().toList());
    } catch (Throwable e) {
      batch.forEach(pending -> pending.result().completeExceptionally(e));
      return;
    }
    for (Pending pending : batch) {
      pending.result().complete(found.getOrDefault(pending.key(), List.of()));
    }
  }

  private void failAll(Throwable e) {
    for (Pending next; (next = queue.poll()) != null; ) {
      next.result().completeExceptionally(e);
    }
  }
}
