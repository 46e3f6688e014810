package dev.flinklance.sink.committer;

import dev.flinklance.access.VersionMark;
import dev.flinklance.commit.CommitStamp;
import dev.flinklance.key.RowKeyCodec;
import dev.flinklance.sink.keys.ChangedKeys;
import dev.flinklance.sink.keys.ChangedKeysCodec;
import dev.flinklance.state.FormatSerializer;
import dev.flinklance.state.FragmentMetadataCodec;
import java.io.IOException;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/** Versioned form of {@link LanceCommittable}; it lives in checkpoints and savepoints. */
@Internal
public final class LanceCommittableSerializer extends FormatSerializer<LanceCommittable> {
  private static final int APPEND_ONLY_FORMAT = 2;
  private static final int INLINE_KEYS_FORMAT = 3;

  /**
   * Format 4: the removed keys of a sink with a primary key, inline or in key files. Formats 3
   * (inline keys only) and 2 (appends only) are read too. Format 1 (pre-release, identity by
   * checkpoint id) cannot be told apart safely from later commits and is refused.
   */
  public LanceCommittableSerializer() {
    super("pending Lance commits", 4, 256);
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
    ChangedKeysCodec.write(committable.removedKeys(), out);
  }

  @Override
  protected LanceCommittable read(DataInputView in) throws IOException {
    return read(in, Keys.IN_FILES_TOO);
  }

  @Override
  protected boolean readsOlder(int format) {
    return format == APPEND_ONLY_FORMAT || format == INLINE_KEYS_FORMAT;
  }

  @Override
  protected LanceCommittable readOlder(int format, DataInputView in) throws IOException {
    return read(in, format == APPEND_ONLY_FORMAT ? Keys.NONE : Keys.INLINE);
  }

  /** How a format holds the removed keys. */
  private enum Keys {
    NONE,
    INLINE,
    IN_FILES_TOO
  }

  private static LanceCommittable read(DataInputView in, Keys keys) throws IOException {
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
        switch (keys) {
          case NONE -> ChangedKeys.NONE;
          case INLINE -> ChangedKeys.inline(RowKeyCodec.readList(in));
          case IN_FILES_TOO -> ChangedKeysCodec.read(in);
        });
  }
}
