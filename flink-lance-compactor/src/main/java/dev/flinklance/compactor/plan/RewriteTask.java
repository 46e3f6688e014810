package dev.flinklance.compactor.plan;

import dev.flinklance.compactor.codec.CompactionTaskCodec;
import dev.flinklance.compactor.codec.VersionedTypeInfo;
import dev.flinklance.state.FormatSerializer;
import java.io.IOException;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.lance.compaction.CompactionTask;

/**
 * Task {@code index} of a plan, on its way to a rewrite worker. A plan with no tasks sends one task
 * without a Lance task, so that the committer learns that the pass happened.
 *
 * @param task the Lance task; null for the marker of an empty plan
 */
@Internal
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
  public static final class Serializer extends FormatSerializer<RewriteTask> {

    public Serializer() {
      super("compaction rewrite tasks", 1, 1024);
    }

    @Override
    protected void write(RewriteTask task, DataOutputView out) throws IOException {
      task.plan.write(out);
      out.writeInt(task.index);
      out.writeBoolean(task.task != null);
      if (task.task != null) {
        CompactionTaskCodec.write(task.task, out);
      }
    }

    @Override
    protected RewriteTask read(DataInputView in) throws IOException {
      PlanRef plan = PlanRef.read(in);
      int index = in.readInt();
      CompactionTask task = in.readBoolean() ? CompactionTaskCodec.read(in) : null;
      return new RewriteTask(plan, index, task);
    }
  }
}
