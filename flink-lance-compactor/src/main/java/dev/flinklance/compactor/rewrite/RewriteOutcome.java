package dev.flinklance.compactor.rewrite;

import dev.flinklance.compactor.codec.RewriteResultCodec;
import dev.flinklance.compactor.codec.VersionedTypeInfo;
import dev.flinklance.compactor.plan.PlanRef;
import dev.flinklance.dataset.FragmentMetadataCodec;
import java.io.IOException;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.lance.compaction.RewriteResult;

/**
 * What a rewrite worker did with task {@code index} of a plan: new fragment files written (not yet
 * committed), or why not.
 *
 * @param result the rewrite, or null if it failed or the plan was empty
 * @param failure why the rewrite failed, or null
 */
public record RewriteOutcome(PlanRef plan, int index, RewriteResult result, String failure) {

  public static RewriteOutcome rewritten(PlanRef plan, int index, RewriteResult result) {
    return new RewriteOutcome(plan, index, result, null);
  }

  public static RewriteOutcome failed(PlanRef plan, int index, String failure) {
    return new RewriteOutcome(plan, index, null, failure);
  }

  public static RewriteOutcome emptyPlan(PlanRef plan) {
    return new RewriteOutcome(plan, 0, null, null);
  }

  public static TypeInformation<RewriteOutcome> typeInfo() {
    return new VersionedTypeInfo<>(RewriteOutcome.class, Serializer.class);
  }

  @Override
  public String toString() {
    return String.format(
        "RewriteOutcome{plan=%s, task %d of %d, %s}",
        plan.planId(),
        index + 1,
        plan.taskCount(),
        result != null
            ? result.getNewFragments().size() + " new fragments"
            : failure != null ? "failed: " + failure : "empty plan");
  }

  /** Versioned form: outcomes wait in the committer's state until their plan is complete. */
  public static final class Serializer implements SimpleVersionedSerializer<RewriteOutcome> {
    private static final int VERSION = 1;

    @Override
    public int getVersion() {
      return VERSION;
    }

    @Override
    public byte[] serialize(RewriteOutcome outcome) throws IOException {
      DataOutputSerializer out = new DataOutputSerializer(1024);
      outcome.plan.write(out);
      out.writeInt(outcome.index);
      out.writeBoolean(outcome.result != null);
      if (outcome.result != null) {
        RewriteResultCodec.write(outcome.result, out);
      }
      FragmentMetadataCodec.writeString(outcome.failure, out);
      return out.getCopyOfBuffer();
    }

    @Override
    public RewriteOutcome deserialize(int version, byte[] serialized) throws IOException {
      if (version != VERSION) {
        throw new IOException("Unknown RewriteOutcome serializer version " + version);
      }
      DataInputDeserializer in = new DataInputDeserializer(serialized);
      PlanRef plan = PlanRef.read(in);
      int index = in.readInt();
      RewriteResult result = in.readBoolean() ? RewriteResultCodec.read(in) : null;
      return new RewriteOutcome(plan, index, result, FragmentMetadataCodec.readString(in));
    }
  }
}
