package dev.flinklance.source.enumerator;

import dev.flinklance.access.VersionMark;
import dev.flinklance.source.split.LanceSplit;
import dev.flinklance.source.split.LanceSplitSerializer;
import dev.flinklance.state.FormatSerializer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/** Binary form of the enumerator's checkpointed state. */
@Internal
public final class LanceEnumeratorStateSerializer extends FormatSerializer<LanceEnumeratorState> {

  public LanceEnumeratorStateSerializer() {
    super("Lance source enumerator states", 2, 64);
  }

  @Override
  protected void write(LanceEnumeratorState state, DataOutputView out) throws IOException {
    out.writeInt(state.pendingSplits().size());
    for (LanceSplit split : state.pendingSplits()) {
      LanceSplitSerializer.INSTANCE.write(split, out);
    }
    VersionMark planned = state.planned();
    out.writeBoolean(planned != null);
    if (planned != null) {
      out.writeLong(planned.version());
      out.writeLong(planned.epochNanos());
    }
  }

  @Override
  protected LanceEnumeratorState read(DataInputView in) throws IOException {
    int count = in.readInt();
    List<LanceSplit> splits = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      splits.add(LanceSplitSerializer.INSTANCE.read(in));
    }
    VersionMark planned = in.readBoolean() ? new VersionMark(in.readLong(), in.readLong()) : null;
    return new LanceEnumeratorState(splits, planned);
  }
}
