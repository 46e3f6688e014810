package dev.flinklance.sink.committer;

import dev.flinklance.dataset.FragmentMetadataCodec;
import java.io.IOException;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/** Versioned form of {@link LanceCommittable}; it lives in checkpoints and savepoints. */
public final class LanceCommittableSerializer
    implements SimpleVersionedSerializer<LanceCommittable> {
  private static final int VERSION = 1;

  @Override
  public int getVersion() {
    return VERSION;
  }

  @Override
  public byte[] serialize(LanceCommittable committable) throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(256);
    FragmentMetadataCodec.writeString(committable.commitUser(), out);
    out.writeLong(committable.checkpointId());
    FragmentMetadataCodec.writeString(committable.jobId(), out);
    FragmentMetadataCodec.writeList(committable.fragments(), out);
    return out.getCopyOfBuffer();
  }

  @Override
  public LanceCommittable deserialize(int version, byte[] serialized) throws IOException {
    if (version != VERSION) {
      throw new IOException("Unknown LanceCommittable serializer version " + version);
    }
    DataInputDeserializer in = new DataInputDeserializer(serialized);
    String commitUser = FragmentMetadataCodec.readString(in);
    long checkpointId = in.readLong();
    String jobId = FragmentMetadataCodec.readString(in);
    return new LanceCommittable(
        commitUser, checkpointId, jobId, FragmentMetadataCodec.readList(in));
  }
}
