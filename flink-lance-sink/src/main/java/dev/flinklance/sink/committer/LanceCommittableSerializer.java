package dev.flinklance.sink.committer;

import dev.flinklance.access.VersionMark;
import dev.flinklance.commit.CommitStamp;
import dev.flinklance.key.RowKeyCodec;
import dev.flinklance.state.FormatSerializer;
import dev.flinklance.state.FragmentMetadataCodec;
import java.io.IOException;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/** Versioned form of {@link LanceCommittable}; it lives in checkpoints and savepoints. */
@Internal
public final class LanceCommittableSerializer extends FormatSerializer<LanceCommittable> {
  private static final int APPEND_ONLY_FORMAT = 2;

  /**
   * Format 3: the removed keys of a sink with a primary key. Format 2 (appends only) is read too.
   * Format 1 (pre-release, identity by checkpoint id) cannot be told apart safely from later
   * commits and is refused.
   */
  public LanceCommittableSerializer() {
    super("pending Lance commits", 3, 256);
  }

  @Override
  protected void write(LanceCommittable committable, DataOutputView out) throws IOException {
    CommitStamp stamp = committable.stamp();
    FragmentMetadataCodec.writeString(stamp.commitUser(), out);
    FragmentMetadataCodec.writeString(stamp.run(), out);
    out.writeLong(stamp.runSeq());
    out.writeLong(stamp.checkpointId());
    FragmentMetadataCodec.writeString(stamp.jobId(), out);
    out.writeLong(committable.runStart().version());
    out.writeLong(committable.runStart().epochNanos());
    out.writeBoolean(committable.overwrite());
    FragmentMetadataCodec.writeList(committable.fragments(), out);
    RowKeyCodec.writeList(committable.removedKeys(), out);
  }

  @Override
  protected LanceCommittable read(DataInputView in) throws IOException {
    return read(in, true);
  }

  @Override
  protected boolean readsOlder(int format) {
    return format == APPEND_ONLY_FORMAT;
  }

  @Override
  protected LanceCommittable readOlder(int format, DataInputView in) throws IOException {
    return read(in, false);
  }

  private static LanceCommittable read(DataInputView in, boolean withKeys) throws IOException {
    CommitStamp stamp =
        new CommitStamp(
            FragmentMetadataCodec.readString(in),
            FragmentMetadataCodec.readString(in),
            in.readLong(),
            in.readLong(),
            FragmentMetadataCodec.readString(in));
    VersionMark runStart = new VersionMark(in.readLong(), in.readLong());
    boolean overwrite = in.readBoolean();
    return new LanceCommittable(
        stamp,
        runStart,
        overwrite,
        FragmentMetadataCodec.readList(in),
        withKeys ? RowKeyCodec.readList(in) : List.of());
  }
}
