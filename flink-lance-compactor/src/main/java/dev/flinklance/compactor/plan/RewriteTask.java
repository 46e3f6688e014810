package dev.flinklance.compactor.plan;

import dev.flinklance.compactor.codec.CompactionTaskCodec;
import dev.flinklance.compactor.codec.VersionedTypeInfo;
import java.io.IOException;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.lance.compaction.CompactionTask;

/**
 * Task {@code index} of a plan, on its way to a rewrite worker. A plan with no tasks sends one task
 * without a Lance task, so that the committer learns that the pass happened.
 *
 * @param task the Lance task; null for the marker of an empty plan
 */
public record RewriteTask(PlanRef plan, int index, CompactionTask task) {

  public static RewriteTask emptyPlan(PlanRef plan) {
    return new RewriteTask(plan, 0, null);
  }

  public boolean isEmptyPlan() {
    return task == null;
  }

  public static TypeInformation<RewriteTask> typeInfo() {
    return new VersionedTypeInfo<>(RewriteTask.class, Serializer.class);
  }

  @Override
  public String toString() {
    return String.format(
        "RewriteTask{plan=%s, task %d of %d, fragments=%s}",
        plan.planId(),
        index + 1,
        plan.taskCount(),
        task == null
            ? "[]"
            : task.getTaskData().getFragments().stream().map(f -> f.getId()).toList());
  }

  /** Versioned form: in-flight tasks live in the workers' state. */
  public static final class Serializer implements SimpleVersionedSerializer<RewriteTask> {
    private static final int VERSION = 1;

    @Override
    public int getVersion() {
      return VERSION;
    }

    @Override
    public byte[] serialize(RewriteTask task) throws IOException {
      DataOutputSerializer out = new DataOutputSerializer(1024);
      task.plan.write(out);
      out.writeInt(task.index);
      out.writeBoolean(task.task != null);
      if (task.task != null) {
        CompactionTaskCodec.write(task.task, out);
      }
      return out.getCopyOfBuffer();
    }

    @Override
    public RewriteTask deserialize(int version, byte[] serialized) throws IOException {
      if (version != VERSION) {
        throw new IOException("Unknown RewriteTask serializer version " + version);
      }
      DataInputDeserializer in = new DataInputDeserializer(serialized);
      PlanRef plan = PlanRef.read(in);
      int index = in.readInt();
      CompactionTask task = in.readBoolean() ? CompactionTaskCodec.read(in) : null;
      return new RewriteTask(plan, index, task);
    }
  }
}
