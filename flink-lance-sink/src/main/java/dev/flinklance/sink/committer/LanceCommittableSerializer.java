package dev.flinklance.sink.committer;

import dev.flinklance.commit.CommitStamp;
import dev.flinklance.dataset.FragmentMetadataCodec;
import dev.flinklance.dataset.VersionMark;
import java.io.IOException;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/** Versioned form of {@link LanceCommittable}; it lives in checkpoints and savepoints. */
@Internal
public final class LanceCommittableSerializer
    implements SimpleVersionedSerializer<LanceCommittable> {
  /**
   * 2: identity by sink run and sequence number. Version 1 (pre-release, identity by checkpoint id)
   * cannot be told apart safely from later commits and is refused.
   */
  private static final int VERSION = 2;

  @Override
  public int getVersion() {
    return VERSION;
  }

  @Override
  public byte[] serialize(LanceCommittable committable) throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(256);
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
    return out.getCopyOfBuffer();
  }

  @Override
  public LanceCommittable deserialize(int version, byte[] serialized) throws IOException {
    if (version != VERSION) {
      throw new IOException(
          String.format(
              "Pending Lance commits in this checkpoint/savepoint have format %d; this connector"
                  + " reads format %d. Restore it with the connector version that wrote it and"
                  + " let its pending commits finish (stop-with-savepoint), then upgrade.",
              version, VERSION));
    }
    DataInputDeserializer in = new DataInputDeserializer(serialized);
    CommitStamp stamp =
        new CommitStamp(
            FragmentMetadataCodec.readString(in),
            FragmentMetadataCodec.readString(in),
            in.readLong(),
            in.readLong(),
            FragmentMetadataCodec.readString(in));
    VersionMark runStart = new VersionMark(in.readLong(), in.readLong());
    boolean overwrite = in.readBoolean();
    return new LanceCommittable(stamp, runStart, overwrite, FragmentMetadataCodec.readList(in));
  }
}
