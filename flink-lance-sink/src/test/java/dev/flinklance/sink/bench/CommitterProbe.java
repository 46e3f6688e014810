package dev.flinklance.sink.bench;

import dev.flinklance.access.VersionMark;
import dev.flinklance.commit.CommitStamp;
import dev.flinklance.sink.LanceSinkConfig;
import dev.flinklance.sink.committer.LanceCommittable;
import dev.flinklance.sink.committer.LanceCommitter;
import dev.flinklance.sink.testing.RecordingCommitRequest;
import dev.flinklance.sink.testing.TestCommitterContext;
import dev.flinklance.testing.TestFragments;
import java.util.List;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.api.connector.sink2.Committer.CommitRequest;
import org.lance.Dataset;

/** Drives the real committer one checkpoint at a time and times only the commit itself. */
final class CommitterProbe implements AutoCloseable {
  private final LanceSinkConfig config;
  private final LanceCommitter committer;
  private final String run = UUID.randomUUID().toString();

  CommitterProbe(LanceSinkConfig config) {
    this.config = config;
    TestFragments.createTable(config.dataset().uri());
    this.committer = new LanceCommitter(config, TestCommitterContext.fresh());
  }

  /** Writes one small fragment (untimed), then commits it as checkpoint {@code id}; nanos. */
  long commitCheckpoint(long id) throws Exception {
    LanceCommittable committable =
        new LanceCommittable(
            new CommitStamp("bench", run, id, id, "bench-job"),
            VersionMark.NO_TABLE,
            false,
            TestFragments.write(config.dataset().uri(), id));
    List<CommitRequest<LanceCommittable>> requests =
        List.of(new RecordingCommitRequest<>(committable));
    long start = System.nanoTime();
    committer.commit(requests);
    return System.nanoTime() - start;
  }

  /** Merges the table's small fragments with Lance's own compaction, as a maintenance job would. */
  void compact() {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open().allocator(allocator).uri(config.dataset().uri()).build()) {
      dataset.compact();
    }
  }

  @Override
  public void close() throws Exception {
    committer.close();
  }
}
