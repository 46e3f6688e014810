package dev.flinklance.table.source.split;

import java.io.IOException;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.DataOutputView;

/** Binary form of a {@link LanceSplit} in checkpoints and on the wire to readers. */
@Internal
public final class LanceSplitSerializer implements SimpleVersionedSerializer<LanceSplit> {
  public static final LanceSplitSerializer INSTANCE = new LanceSplitSerializer();
  private static final int VERSION = 1;

  @Override
  public int getVersion() {
    return VERSION;
  }

  @Override
  public byte[] serialize(LanceSplit split) throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(20);
    write(split, out);
    return out.getCopyOfBuffer();
  }

  @Override
  public LanceSplit deserialize(int version, byte[] serialized) throws IOException {
    if (version != VERSION) {
      throw new IOException("Unknown Lance split serializer version " + version);
    }
    return read(new DataInputDeserializer(serialized));
  }

  public static void write(LanceSplit split, DataOutputView out) throws IOException {
    out.writeInt(split.fragmentId());
    out.writeLong(split.version());
    out.writeLong(split.rowsEmitted());
  }

  public static LanceSplit read(DataInputView in) throws IOException {
    return new LanceSplit(in.readInt(), in.readLong(), in.readLong());
  }
}
