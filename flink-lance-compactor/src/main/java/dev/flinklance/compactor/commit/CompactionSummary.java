package dev.flinklance.compactor.commit;

import dev.flinklance.compactor.codec.VersionedTypeInfo;
import dev.flinklance.state.FormatSerializer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * What one compaction did; the compaction committer emits one per plan (the standalone job prints
 * them, {@code sys.compact} returns them, tests read them).
 *
 * <p>A class with accessors rather than a record, so that a new figure is a new accessor: code that
 * reads summaries keeps compiling and running. Only the connector builds them.
 */
@PublicEvolving
public final class CompactionSummary {
  private final String planId;
  private final Outcome outcome;
  private final long version;
  private final int fragmentsBefore;
  private final int fragmentsAfter;
  private final int fragmentsRewritten;
  private final int fragmentsWritten;
  private final long rowsRewritten;
  private final long bytesRewritten;
  private final long lineageBytesSpilled;
  private final int groupsPreempted;
  private final int tasksFailed;
  private final long durationMs;
  private final String failure;

  private CompactionSummary(Builder builder) {
    this.planId = Objects.requireNonNull(builder.planId, "planId");
    this.outcome = Objects.requireNonNull(builder.outcome, "outcome");
    this.version = builder.version;
    this.fragmentsBefore = builder.fragmentsBefore;
    this.fragmentsAfter = builder.fragmentsAfter;
    this.fragmentsRewritten = builder.fragmentsRewritten;
    this.fragmentsWritten = builder.fragmentsWritten;
    this.rowsRewritten = builder.rowsRewritten;
    this.bytesRewritten = builder.bytesRewritten;
    this.lineageBytesSpilled = builder.lineageBytesSpilled;
    this.groupsPreempted = builder.groupsPreempted;
    this.tasksFailed = builder.tasksFailed;
    this.durationMs = builder.durationMs;
    this.failure = builder.failure;
  }

  /**
   * A summary of the plan {@code planId}; the fragments after default to those before, the version
   * to -1 (nothing committed).
   */
  @Internal
  public static Builder builder(String planId, Outcome outcome, int fragmentsBefore) {
    return new Builder(planId, outcome, fragmentsBefore);
  }

  @Internal
  public static TypeInformation<CompactionSummary> typeInfo() {
    return new VersionedTypeInfo<>(CompactionSummary.class, Serializer.class);
  }

  public String planId() {
    return planId;
  }

  public Outcome outcome() {
    return outcome;
  }

  /** The table version of the compaction commit; -1 if nothing was committed. */
  public long version() {
    return version;
  }

  /** The table's fragments when the plan was made. */
  public int fragmentsBefore() {
    return fragmentsBefore;
  }

  /** The table's fragments after the commit (when the plan was made, if nothing was committed). */
  public int fragmentsAfter() {
    return fragmentsAfter;
  }

  public int fragmentsRewritten() {
    return fragmentsRewritten;
  }

  public int fragmentsWritten() {
    return fragmentsWritten;
  }

  public long rowsRewritten() {
    return rowsRewritten;
  }

  public long bytesRewritten() {
    return bytesRewritten;
  }

  public long lineageBytesSpilled() {
    return lineageBytesSpilled;
  }

  /** Groups of rewrites dropped because a concurrent change reached their fragments first. */
  public int groupsPreempted() {
    return groupsPreempted;
  }

  public int tasksFailed() {
    return tasksFailed;
  }

  public long durationMs() {
    return durationMs;
  }

  /** Why the compaction failed ({@link Outcome#FAILED}), otherwise null. */
  public String failure() {
    return failure;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof CompactionSummary that
        && planId.equals(that.planId)
        && outcome == that.outcome
        && version == that.version
        && fragmentsBefore == that.fragmentsBefore
        && fragmentsAfter == that.fragmentsAfter
        && fragmentsRewritten == that.fragmentsRewritten
        && fragmentsWritten == that.fragmentsWritten
        && rowsRewritten == that.rowsRewritten
        && bytesRewritten == that.bytesRewritten
        && lineageBytesSpilled == that.lineageBytesSpilled
        && groupsPreempted == that.groupsPreempted
        && tasksFailed == that.tasksFailed
        && durationMs == that.durationMs
        && Objects.equals(failure, that.failure);
  }

  @Override
  public int hashCode() {
    return Objects.hash(planId, outcome, version, fragmentsBefore, fragmentsAfter, rowsRewritten);
  }

  @Override
  public String toString() {
    return "CompactionSummary[planId="
        + planId
        + ", outcome="
        + outcome
        + ", version="
        + version
        + ", fragmentsBefore="
        + fragmentsBefore
        + ", fragmentsAfter="
        + fragmentsAfter
        + ", fragmentsRewritten="
        + fragmentsRewritten
        + ", fragmentsWritten="
        + fragmentsWritten
        + ", rowsRewritten="
        + rowsRewritten
        + ", bytesRewritten="
        + bytesRewritten
        + ", lineageBytesSpilled="
        + lineageBytesSpilled
        + ", groupsPreempted="
        + groupsPreempted
        + ", tasksFailed="
        + tasksFailed
        + ", durationMs="
        + durationMs
        + ", failure="
        + failure
        + "]";
  }

  /** How a compaction ended. */
  @PublicEvolving
  public enum Outcome {
    /** Committed now. */
    COMMITTED,
    /** Found in the table's history: committed before a failure or restore. */
    ALREADY_COMMITTED,
    /** Nothing left to commit: every rewrite failed or was preempted by a concurrent change. */
    NOTHING_COMMITTED,
    /** A pass that found nothing to compact. */
    NOTHING_TO_COMPACT,
    /**
     * The commit failed (the table's storage refused it, an invalid table config, a check before or
     * after the commit): the table is as it was, and the fragments are planned again later.
     */
    FAILED
  }

  /** Builds a summary; the connector's, not users'. */
  @Internal
  public static final class Builder {
    private final String planId;
    private final Outcome outcome;
    private final int fragmentsBefore;
    private long version = -1;
    private int fragmentsAfter;
    private int fragmentsRewritten;
    private int fragmentsWritten;
    private long rowsRewritten;
    private long bytesRewritten;
    private long lineageBytesSpilled;
    private int groupsPreempted;
    private int tasksFailed;
    private long durationMs;
    private String failure;

    private Builder(String planId, Outcome outcome, int fragmentsBefore) {
      this.planId = planId;
      this.outcome = outcome;
      this.fragmentsBefore = fragmentsBefore;
      this.fragmentsAfter = fragmentsBefore;
    }

    public Builder committed(long version, int fragmentsAfter) {
      this.version = version;
      this.fragmentsAfter = fragmentsAfter;
      return this;
    }

    public Builder rewrote(int fragments, int written, long rows, long bytes) {
      this.fragmentsRewritten = fragments;
      this.fragmentsWritten = written;
      this.rowsRewritten = rows;
      this.bytesRewritten = bytes;
      return this;
    }

    public Builder lineageBytesSpilled(long bytes) {
      this.lineageBytesSpilled = bytes;
      return this;
    }

    public Builder groupsPreempted(int groups) {
      this.groupsPreempted = groups;
      return this;
    }

    public Builder tasksFailed(int tasks) {
      this.tasksFailed = tasks;
      return this;
    }

    public Builder durationMs(long millis) {
      this.durationMs = millis;
      return this;
    }

    public Builder failure(String failure) {
      this.failure = failure;
      return this;
    }

    public CompactionSummary build() {
      return new CompactionSummary(this);
    }
  }

  /**
   * Versioned form: summaries travel to the job's collector and may sit in unaligned checkpoints'
   * in-flight data. A new figure is a new format that still reads the older ones.
   */
  @Internal
  public static final class Serializer extends FormatSerializer<CompactionSummary> {

    public Serializer() {
      super("compaction summaries", 1, 128);
    }

    @Override
    protected void write(CompactionSummary summary, DataOutputView out) throws IOException {
      out.writeUTF(summary.planId);
      out.writeUTF(summary.outcome.name());
      out.writeLong(summary.version);
      out.writeInt(summary.fragmentsBefore);
      out.writeInt(summary.fragmentsAfter);
      out.writeInt(summary.fragmentsRewritten);
      out.writeInt(summary.fragmentsWritten);
      out.writeLong(summary.rowsRewritten);
      out.writeLong(summary.bytesRewritten);
      out.writeLong(summary.lineageBytesSpilled);
      out.writeInt(summary.groupsPreempted);
      out.writeInt(summary.tasksFailed);
      out.writeLong(summary.durationMs);
      out.writeBoolean(summary.failure != null);
      if (summary.failure != null) {
        // writeUTF stops at 64 KiB; a failure's message (Lance's, with its context) may be longer
        byte[] failure = summary.failure.getBytes(StandardCharsets.UTF_8);
        out.writeInt(failure.length);
        out.write(failure);
      }
    }

    @Override
    protected CompactionSummary read(DataInputView in) throws IOException {
      String planId = in.readUTF();
      Outcome outcome = Outcome.valueOf(in.readUTF());
      long version = in.readLong();
      int before = in.readInt();
      int after = in.readInt();
      Builder builder =
          builder(planId, outcome, before)
              .committed(version, after)
              .rewrote(in.readInt(), in.readInt(), in.readLong(), in.readLong())
              .lineageBytesSpilled(in.readLong())
              .groupsPreempted(in.readInt())
              .tasksFailed(in.readInt())
              .durationMs(in.readLong());
      if (in.readBoolean()) {
        byte[] failure = new byte[in.readInt()];
        in.readFully(failure);
        builder.failure(new String(failure, StandardCharsets.UTF_8));
      }
      return builder.build();
    }
  }
}
