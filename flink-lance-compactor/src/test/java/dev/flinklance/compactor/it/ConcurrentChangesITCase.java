package dev.flinklance.compactor.it;

import static dev.flinklance.compactor.testing.LineageTables.append;
import static dev.flinklance.compactor.testing.LineageTables.createStable;
import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.access.LanceDatasetOptions;
import dev.flinklance.compactor.CompactionConfig;
import dev.flinklance.compactor.commit.CompactionSummary;
import dev.flinklance.compactor.commit.CompactionSummary.Outcome;
import dev.flinklance.compactor.operator.CompactionTopology;
import dev.flinklance.compactor.operator.RewriteFunction;
import dev.flinklance.compactor.plan.PlanRequest;
import dev.flinklance.compactor.testing.LineageTables;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestClusters;
import dev.flinklance.testing.TestFragments;
import java.io.Serializable;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.lance.CommitBuilder;
import org.lance.Dataset;
import org.lance.Transaction;
import org.lance.compaction.CompactionTask;
import org.lance.compaction.RewriteResult;
import org.lance.operation.Overwrite;

/**
 * A delete and an overwrite land while a rewrite worker rewrites the fragments they change: the
 * compaction drops that rewrite (no deleted row comes back, the overwrite stays), and the next pass
 * compacts what the table holds then.
 */
class ConcurrentChangesITCase {
  private static final int ROWS = 1_000;

  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withFlinksRestarts();

  @TempDir Path dir;

  @Test
  void aDeleteDuringTheRewriteIsNotUndone() throws Exception {
    String table = table("delete");

    CompactionSummary first = pass(table, uri -> LineageTables.delete(uri, "id % 3 = 0"));

    assertThat(first.outcome()).isEqualTo(Outcome.NOTHING_COMMITTED);
    assertThat(first.groupsPreempted()).isPositive();
    List<Long> expected = LongStream.range(0, ROWS).filter(id -> id % 3 != 0).boxed().toList();
    assertThat(LanceTestTables.readLongs(table, "id"))
        .containsExactlyInAnyOrderElementsOf(expected);

    CompactionSummary second = pass(table, uri -> {});

    assertThat(second.outcome()).isEqualTo(Outcome.COMMITTED);
    assertThat(LanceTestTables.fragmentCount(table)).isEqualTo(1);
    assertThat(LanceTestTables.readLongs(table, "id"))
        .containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  void anOverwriteDuringTheRewriteStays() throws Exception {
    String table = table("overwrite");

    CompactionSummary summary = pass(table, ConcurrentChangesITCase::overwrite);

    assertThat(summary.outcome()).isEqualTo(Outcome.NOTHING_COMMITTED);
    assertThat(LanceTestTables.readLongs(table, "id")).containsExactlyInAnyOrder(-1L, -2L);
  }

  private String table(String name) {
    String uri = dir.resolve(name).toString();
    createStable(uri);
    append(uri, 0, ROWS, 10);
    return uri;
  }

  /** One standalone pass whose rewrite worker lets {@code change} land before it rewrites. */
  private static CompactionSummary pass(String uri, Change change) throws Exception {
    Configuration conf = new Configuration();
    conf.set(LanceDatasetOptions.PATH, uri);
    CompactionConfig config = CompactionConfig.from(conf);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(1);
    var summaries =
        CompactionTopology.add(
            env.fromData(TypeInformation.of(PlanRequest.class), PlanRequest.PASS),
            config,
            null,
            new ChangingRewrite(config, change));
    try (CloseableIterator<CompactionSummary> results = summaries.executeAndCollect()) {
      return results.next();
    }
  }

  private static void overwrite(String uri) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open().allocator(allocator).uri(uri).build();
        Transaction overwrite =
            new Transaction.Builder()
                .readVersion(dataset.version())
                .operation(
                    Overwrite.builder()
                        .fragments(TestFragments.write(uri, -1, -2))
                        .schema(TestFragments.SCHEMA)
                        .build())
                .build();
        Dataset ignored = new CommitBuilder(dataset).execute(overwrite)) {
      // overwritten
    }
  }

  /** Another writer's change to the table. */
  private interface Change extends Consumer<String>, Serializable {}

  /** Runs another writer's change on the table, then the rewrite (of the version before it). */
  private static final class ChangingRewrite extends RewriteFunction {
    private static final long serialVersionUID = 1L;
    private final String uri;
    private final Consumer<String> change;

    ChangingRewrite(CompactionConfig config, Change change) {
      super(config.dataset());
      this.uri = config.dataset().uri();
      this.change = change;
    }

    @Override
    protected RewriteResult execute(CompactionTask task, Dataset dataset) {
      change.accept(uri);
      return super.execute(task, dataset);
    }
  }
}
