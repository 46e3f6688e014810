package dev.flinklance.sink.writer;

import dev.flinklance.dataset.FragmentMetadataCodec;
import java.io.IOException;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/** Versioned wire form of {@link LanceWriteResult}. */
@Internal
public final class LanceWriteResultSerializer
    implements SimpleVersionedSerializer<LanceWriteResult> {
  private static final int VERSION = 1;

  @Override
  public int getVersion() {
    return VERSION;
  }

  @Override
  public byte[] serialize(LanceWriteResult result) throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(256);
    FragmentMetadataCodec.writeList(result.fragments(), out);
    return out.getCopyOfBuffer();
  }

  @Override
  public LanceWriteResult deserialize(int version, byte[] serialized) throws IOException {
    if (version != VERSION) {
      throw new IOException("Unknown LanceWriteResult serializer version " + version);
    }
    return new LanceWriteResult(
        FragmentMetadataCodec.readList(new DataInputDeserializer(serialized)));
  }
}
