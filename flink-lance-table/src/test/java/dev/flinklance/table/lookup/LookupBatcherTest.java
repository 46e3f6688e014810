package dev.flinklance.table.lookup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.key.PrimaryKey;
import dev.flinklance.key.RowKey;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;

/**
 * {@link LookupBatcher}: the keys that wait while a query runs go into the next query, at most 128
 * each, a key asked twice once; a failed query fails the lookups it carried, and only those.
 */
class LookupBatcherTest {
  private static final PrimaryKey KEY =
      PrimaryKey.of(
          (RowType) DataTypes.ROW(DataTypes.FIELD("id", DataTypes.BIGINT())).getLogicalType(),
          List.of("id"),
          "test");

  /** Runs the workers' tasks when the test says so. */
  private static final class ManualExecutor implements Executor {
    final Queue<Runnable> tasks = new ArrayDeque<>();

    @Override
    public void execute(Runnable task) {
      tasks.add(task);
    }

    void runAll() {
      for (Runnable task; (task = tasks.poll()) != null; ) {
        task.run();
      }
    }
  }

  private static RowKey key(long id) {
    return KEY.keyOf(GenericRowData.of(id));
  }

  @Test
  void keysWaitingForAWorkerAreLookedUpTogether() throws Exception {
    ManualExecutor workers = new ManualExecutor();
    List<Collection<RowKey>> queries = new ArrayList<>();
    LookupBatcher batcher =
        new LookupBatcher(
            keys -> {
              queries.add(List.copyOf(keys));
              Map<RowKey, List<RowData>> found = new HashMap<>();
              keys.forEach(
                  k ->
                      found.put(
                          k, List.of(GenericRowData.of(StringData.fromString(k.toString())))));
              return found;
            },
            workers,
            1,
            128);
    List<CompletableFuture<Collection<RowData>>> results = new ArrayList<>();
    for (long id = 0; id < 300; id++) {
      results.add(batcher.submit(key(id)));
    }
    results.add(batcher.submit(key(260))); // asked for twice, in the same batch
    assertThat(workers.tasks).as("one worker, busy until its tasks run").hasSize(1);
    workers.runAll();

    assertThat(queries).extracting(Collection::size).containsExactly(128, 128, 44);
    for (long id = 0; id < 300; id++) {
      assertThat(results.get((int) id).get())
          .extracting(row -> row.getString(0).toString())
          .containsExactly("(" + id + ")");
    }
    assertThat(results.get(300).get())
        .extracting(row -> row.getString(0).toString())
        .containsExactly("(260)");
  }

  @Test
  void aFailedQueryFailsItsOwnLookupsOnly() throws Exception {
    ManualExecutor workers = new ManualExecutor();
    LookupBatcher batcher =
        new LookupBatcher(
            keys -> {
              if (keys.contains(key(1))) {
                throw new IllegalStateException("injected");
              }
              return Map.of();
            },
            workers,
            1,
            2);
    CompletableFuture<Collection<RowData>> first = batcher.submit(key(1));
    CompletableFuture<Collection<RowData>> second = batcher.submit(key(2));
    CompletableFuture<Collection<RowData>> third = batcher.submit(key(3));
    workers.runAll();
    assertThat(first).isCompletedExceptionally();
    assertThat(second).isCompletedExceptionally();
    assertThat(third.get()).as("no rows").isEmpty();
    try {
      first.get();
    } catch (ExecutionException e) {
      assertThat(e.getCause()).hasMessage("injected");
    }
  }

  @Test
  void aKeyArrivingWhileTheLastWorkerFinishesStartsAnother() {
    ManualExecutor workers = new ManualExecutor();
    List<LookupBatcher> self = new ArrayList<>();
    List<CompletableFuture<Collection<RowData>>> late = new ArrayList<>();
    LookupBatcher batcher =
        new LookupBatcher(
            keys -> {
              if (late.isEmpty()) { // a key arrives while this query runs
                late.add(self.get(0).submit(key(99)));
              }
              return Map.of();
            },
            workers,
            1,
            128);
    self.add(batcher);
    CompletableFuture<Collection<RowData>> first = batcher.submit(key(1));
    workers.runAll();
    assertThat(first).isCompleted();
    assertThat(late.get(0)).as("taken by the same or a new worker").isCompleted();
  }
}
