package dev.flinklance.sink.dynamic;

import dev.flinklance.concurrent.NativeWorkers;
import dev.flinklance.sink.committer.LanceCommittable;
import dev.flinklance.sink.committer.LanceCommitter;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.table.types.logical.RowType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits the dynamic sink's committables: each table's with a single-table {@link LanceCommitter}
 * of its own (replay recognition, retries, the table's identity and written columns checked, key
 * index upkeep: all as for one table), the tables on up to {@code sink.dynamic.commit-threads}
 * threads at once, so that one slow table does not serialise the others. A table's committables
 * stay in checkpoint order on one thread.
 */
@Internal
public final class DynamicCommitter implements Committer<DynamicCommittable> {
  private static final Logger LOG = LoggerFactory.getLogger(DynamicCommitter.class);

  private final DynamicSinkConfig config;
  private final CommitterInitContext context;
  private final Map<TableName, LanceCommitter> committers = new HashMap<>();
  private final WorkerThreads threads;

  DynamicCommitter(DynamicSinkConfig config, CommitterInitContext context) {
    this.config = config;
    this.context = context;
    this.threads = new WorkerThreads(config.commitThreads(), "lance-dynamic-committer-");
  }

  @Override
  public void commit(Collection<CommitRequest<DynamicCommittable>> requests)
      throws IOException, InterruptedException {
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
    List<Callable<Void>> commits = new ArrayList<>();
    byTable.forEach(
        (table, tableRequests) ->
            commits.add(
                () -> {
                  commitTable(table, tableRequests);
                  return null;
                }));
    try {
      threads.runAll(commits);
    } catch (InterruptedException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException(e);
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

  /**
   * Closes the tables' committers once no commit runs: closing a table under a commit in flight
   * aborts the JVM.
   */
  @Override
  public void close() throws Exception {
    if (!threads.close()) {
      LOG.warn(
          "Dynamic Lance committer: commits still running after {}; their tables are left open",
          NativeWorkers.STOP_WAIT);
      committers.clear();
      return;
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
