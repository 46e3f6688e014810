package dev.flinklance.sink.dynamic;

import dev.flinklance.sink.committer.LanceCommittable;
import dev.flinklance.sink.committer.LanceCommitter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.ExceptionUtils;
import org.apache.flink.util.concurrent.ExecutorThreadFactory;

/**
 * Commits the dynamic sink's committables: each table's with a single-table {@link LanceCommitter}
 * of its own (replay recognition, retries, the table's identity and written columns checked, key
 * index upkeep: all as for one table), the tables on up to {@code sink.dynamic.commit-threads}
 * threads at once, so that one slow table does not serialise the others. A table's committables
 * stay in checkpoint order on one thread.
 */
@Internal
public final class DynamicCommitter implements Committer<DynamicCommittable> {
  private final DynamicSinkConfig config;
  private final CommitterInitContext context;
  private final Map<TableName, LanceCommitter> committers = new HashMap<>();
  private ExecutorService threads;

  DynamicCommitter(DynamicSinkConfig config, CommitterInitContext context) {
    this.config = config;
    this.context = context;
  }

  @Override
  public void commit(Collection<CommitRequest<DynamicCommittable>> requests)
      throws InterruptedException {
    Map<TableName, List<CommitRequest<LanceCommittable>>> byTable = new LinkedHashMap<>();
    for (CommitRequest<DynamicCommittable> request : requests) {
      DynamicCommittable committable = request.getCommittable();
      committerOf(committable);
      byTable
          .computeIfAbsent(committable.table(), t -> new ArrayList<>())
          .add(new TableCommitRequest(request));
    }
    if (byTable.size() == 1) {
      byTable.forEach(this::commitTable);
      return;
    }
    List<Future<?>> running = new ArrayList<>();
    byTable.forEach(
        (table, tableRequests) ->
            running.add(threads().submit(() -> commitTable(table, tableRequests))));
    for (Future<?> commit : running) {
      try {
        commit.get();
      } catch (ExecutionException e) {
        ExceptionUtils.rethrow(e.getCause());
      }
    }
  }

  private void commitTable(TableName table, List<CommitRequest<LanceCommittable>> requests) {
    try {
      committers.get(table).commit(requests);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      requests.forEach(CommitRequest::retryLater);
    }
  }

  private LanceCommitter committerOf(DynamicCommittable committable) {
    return committers.computeIfAbsent(
        committable.table(),
        table -> {
          RowType keyType = committable.keyType();
          List<String> key = keyType == null ? List.of() : keyType.getFieldNames();
          RowType rows = keyType == null ? RowType.of() : keyType;
          return new LanceCommitter(config.forTable(table, rows, key, Map.of()), context);
        });
  }

  private ExecutorService threads() {
    if (threads == null) {
      threads =
          Executors.newFixedThreadPool(
              config.commitThreads(), new ExecutorThreadFactory("lance-dynamic-committer"));
    }
    return threads;
  }

  @Override
  public void close() throws Exception {
    if (threads != null) {
      threads.shutdownNow();
    }
    for (LanceCommitter committer : committers.values()) {
      committer.close();
    }
    committers.clear();
  }

  /** A dynamic commit request as its table's committer sees it. */
  private static final class TableCommitRequest implements CommitRequest<LanceCommittable> {
    private final CommitRequest<DynamicCommittable> request;

    TableCommitRequest(CommitRequest<DynamicCommittable> request) {
      this.request = request;
    }

    @Override
    public LanceCommittable getCommittable() {
      return request.getCommittable().committable();
    }

    @Override
    public int getNumberOfRetries() {
      return request.getNumberOfRetries();
    }

    @Override
    public void signalFailedWithKnownReason(Throwable t) {
      request.signalFailedWithKnownReason(t);
    }

    @Override
    public void signalFailedWithUnknownReason(Throwable t) {
      request.signalFailedWithUnknownReason(t);
    }

    @Override
    public void retryLater() {
      request.retryLater();
    }

    @Override
    public void updateAndRetryLater(LanceCommittable committable) {
      DynamicCommittable current = request.getCommittable();
      request.updateAndRetryLater(
          new DynamicCommittable(current.table(), current.keyType(), committable));
    }

    @Override
    public void signalAlreadyCommitted() {
      request.signalAlreadyCommitted();
    }
  }
}
