package dev.flinklance.compactor.rewrite;

import dev.flinklance.compactor.codec.RewriteResultCodec;
import dev.flinklance.compactor.codec.VersionedTypeInfo;
import dev.flinklance.compactor.plan.PlanRef;
import dev.flinklance.state.FormatSerializer;
import dev.flinklance.state.FragmentMetadataCodec;
import java.io.IOException;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.lance.compaction.RewriteResult;

/**
 * What a rewrite worker did with task {@code index} of a plan: new fragment files written (not yet
 * committed), or why not. A large rewrite travels and waits in the committer's state as the name of
 * the file that holds it ({@link OutcomeFiles}).
 *
 * @param result the rewrite, or null if it is held in a file, failed, or the plan was empty
 * @param resultFile the file holding the rewrite, or null
 * @param failure why the rewrite failed, or null
 */
@Internal
public record RewriteOutcome(
    PlanRef plan, int index, RewriteResult result, String resultFile, String failure) {

  public static RewriteOutcome rewritten(PlanRef plan, int index, RewriteResult result) {
    return new RewriteOutcome(plan, index, result, null, null);
  }

  static RewriteOutcome held(PlanRef plan, int index, String resultFile) {
    return new RewriteOutcome(plan, index, null, resultFile, null);
  }

  public static RewriteOutcome failed(PlanRef plan, int index, String failure) {
    return new RewriteOutcome(plan, index, null, null, failure);
  }

  public static RewriteOutcome emptyPlan(PlanRef plan) {
    return new RewriteOutcome(plan, 0, null, null, null);
  }

  /** Whether the worker rewrote its fragments (the result inline or in a file). */
  public boolean isRewritten() {
    return result != null || resultFile != null;
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
            : resultFile != null
                ? "rewrite in " + resultFile
                : failure != null ? "failed: " + failure : "empty plan");
  }

  /**
   * Versioned form: outcomes wait in the committer's state until their plan is complete. Format 2
   * added the result's file; format 1 is read (its results are inline).
   */
  public static final class Serializer extends FormatSerializer<RewriteOutcome> {

    public Serializer() {
      super("compaction rewrite outcomes", 2, 1024);
    }

    @Override
    protected void write(RewriteOutcome outcome, DataOutputView out) throws IOException {
      outcome.plan.write(out);
      out.writeInt(outcome.index);
      out.writeBoolean(outcome.result != null);
      if (outcome.result != null) {
        RewriteResultCodec.write(outcome.result, out);
      }
      FragmentMetadataCodec.writeString(outcome.resultFile, out);
      FragmentMetadataCodec.writeString(outcome.failure, out);
    }

    @Override
    protected RewriteOutcome read(DataInputView in) throws IOException {
      PlanRef plan = PlanRef.read(in);
      int index = in.readInt();
      RewriteResult result = in.readBoolean() ? RewriteResultCodec.read(in) : null;
      String resultFile = FragmentMetadataCodec.readString(in);
      return new RewriteOutcome(
          plan, index, result, resultFile, FragmentMetadataCodec.readString(in));
    }

    @Override
    protected boolean readsOlder(int format) {
      return format == 1;
    }

    @Override
    protected RewriteOutcome readOlder(int format, DataInputView in) throws IOException {
      PlanRef plan = PlanRef.read(in);
      int index = in.readInt();
      RewriteResult result = in.readBoolean() ? RewriteResultCodec.read(in) : null;
      return new RewriteOutcome(plan, index, result, null, FragmentMetadataCodec.readString(in));
    }
  }
}
