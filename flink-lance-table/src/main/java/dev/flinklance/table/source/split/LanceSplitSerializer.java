package dev.flinklance.table.source.split;

import dev.flinklance.dataset.FormatSerializer;
import java.io.IOException;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/** Binary form of a {@link LanceSplit} in checkpoints and on the wire to readers. */
@Internal
public final class LanceSplitSerializer extends FormatSerializer<LanceSplit> {
  public static final LanceSplitSerializer INSTANCE = new LanceSplitSerializer();

  public LanceSplitSerializer() {
    super("Lance source splits", 1, 20);
  }

  @Override
  public void write(LanceSplit split, DataOutputView out) throws IOException {
    out.writeInt(split.fragmentId());
    out.writeLong(split.version());
    out.writeLong(split.rowsEmitted());
  }

  @Override
  public LanceSplit read(DataInputView in) throws IOException {
    return new LanceSplit(in.readInt(), in.readLong(), in.readLong());
  }
}
