package dev.flinklance.compactor.codec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.compactor.plan.PlanRef;
import dev.flinklance.compactor.plan.RewriteTask;
import dev.flinklance.compactor.rewrite.RewriteOutcome;
import dev.flinklance.compactor.testing.LineageTables;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.compaction.Compaction;
import org.lance.compaction.CompactionMode;
import org.lance.compaction.CompactionOptions;
import org.lance.compaction.CompactionTask;
import org.lance.compaction.RewriteResult;

/**
 * Compaction tasks and rewrite results survive Flink state and the wire: a task read back from its
 * bytes rewrites the same fragments, a result read back carries the same fragments and row ids.
 */
class MessageSerializersTest {
  @TempDir Path dir;

  @Test
  void aTaskAndItsResultRoundTrip() throws IOException {
    String uri = dir.resolve("t").toString();
    LineageTables.createStable(uri);
    LineageTables.append(uri, 0, 600, 6);
    LineageTables.update(uri, List.of(3L, 300L, 599L));
    LineageTables.delete(uri, "id % 5 = 0");
    CompactionOptions options =
        CompactionOptions.builder()
            .withTargetRowsPerFragment(10_000)
            .withMaxRowsPerGroup(512)
            .withMaterializeDeletionsThreshold(0.05f)
            .withCompactionMode(CompactionMode.REENCODE)
            .build();
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open().allocator(allocator).uri(uri).build()) {
      CompactionTask task = Compaction.planCompaction(dataset, options).getCompactionTasks().get(0);
      PlanRef plan = new PlanRef("p", task.getReadVersion(), 1, 7);

      RewriteTask copy =
          roundTrip(
              RewriteTask.typeInfo().createSerializer(new SerializerConfigImpl()),
              new RewriteTask(plan, 0, task));

      assertThat(copy.plan()).isEqualTo(plan);
      assertThat(copy.task().getReadVersion()).isEqualTo(task.getReadVersion());
      assertThat(copy.task().getTaskData().getFragments())
          .isEqualTo(task.getTaskData().getFragments());
      assertThat(copy.task().getCompactionOptions().toString())
          .isEqualToIgnoringCase(task.getCompactionOptions().toString());

      RewriteResult result = copy.task().execute(dataset);
      RewriteOutcome outcome =
          roundTrip(
              RewriteOutcome.typeInfo().createSerializer(new SerializerConfigImpl()),
              RewriteOutcome.rewritten(plan, 0, result));

      assertThat(outcome.result().getNewFragments()).isEqualTo(result.getNewFragments());
      assertThat(outcome.result().getOriginalFragments()).isEqualTo(result.getOriginalFragments());
      assertThat(outcome.result().getReadVersion()).isEqualTo(result.getReadVersion());
      assertThat(outcome.result().getMetrics().toString())
          .isEqualTo(result.getMetrics().toString());
      assertThat(outcome.result().getNewFragments().get(0).getRowIdMeta()).isNotNull();
    }
  }

  @Test
  void failedAndEmptyOutcomesRoundTrip() throws IOException {
    PlanRef plan = new PlanRef("p", 3, 2, 9);
    TypeSerializer<RewriteOutcome> serializer =
        RewriteOutcome.typeInfo().createSerializer(new SerializerConfigImpl());

    assertThat(roundTrip(serializer, RewriteOutcome.failed(plan, 1, "boom")))
        .isEqualTo(RewriteOutcome.failed(plan, 1, "boom"));
    assertThat(roundTrip(serializer, RewriteOutcome.emptyPlan(plan)))
        .isEqualTo(RewriteOutcome.emptyPlan(plan));
  }

  @Test
  void theStateSerializerRestoresFromItsSnapshot() throws IOException {
    TypeSerializer<RewriteTask> serializer =
        RewriteTask.typeInfo().createSerializer(new SerializerConfigImpl());
    DataOutputSerializer out = new DataOutputSerializer(64);
    TypeSerializerSnapshot.writeVersionedSnapshot(out, serializer.snapshotConfiguration());
    TypeSerializerSnapshot<RewriteTask> restored =
        TypeSerializerSnapshot.readVersionedSnapshot(
            new DataInputDeserializer(out.getCopyOfBuffer()), getClass().getClassLoader());

    assertThat(restored.restoreSerializer()).isEqualTo(serializer);
    assertThat(
            serializer
                .snapshotConfiguration()
                .resolveSchemaCompatibility(restored)
                .isCompatibleAsIs())
        .isTrue();
  }

  private static <T> T roundTrip(TypeSerializer<T> serializer, T value) throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(256);
    serializer.serialize(value, out);
    return serializer.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
  }
}
