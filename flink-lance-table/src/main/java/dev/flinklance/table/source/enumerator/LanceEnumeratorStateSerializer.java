package dev.flinklance.table.source.enumerator;

import dev.flinklance.table.source.split.LanceSplit;
import dev.flinklance.table.source.split.LanceSplitSerializer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/** Binary form of the enumerator's checkpointed state. */
@Internal
public final class LanceEnumeratorStateSerializer
    implements SimpleVersionedSerializer<LanceEnumeratorState> {
  private static final int VERSION = 1;

  @Override
  public int getVersion() {
    return VERSION;
  }

  @Override
  public byte[] serialize(LanceEnumeratorState state) throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(64);
    out.writeInt(state.pendingSplits().size());
    for (LanceSplit split : state.pendingSplits()) {
      LanceSplitSerializer.write(split, out);
    }
    return out.getCopyOfBuffer();
  }

  @Override
  public LanceEnumeratorState deserialize(int version, byte[] serialized) throws IOException {
    if (version != VERSION) {
      throw new IOException("Unknown Lance enumerator state version " + version);
    }
    DataInputDeserializer in = new DataInputDeserializer(serialized);
    int count = in.readInt();
    List<LanceSplit> splits = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      splits.add(LanceSplitSerializer.read(in));
    }
    return new LanceEnumeratorState(splits);
  }
}
