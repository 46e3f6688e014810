package dev.flinklance.source.split;

import dev.flinklance.state.FormatSerializer;
import java.io.IOException;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/** Binary form of a {@link LanceSplit} in checkpoints and on the wire to readers. */
@Internal
public final class LanceSplitSerializer extends FormatSerializer<LanceSplit> {
  public static final LanceSplitSerializer INSTANCE = new LanceSplitSerializer();

  private static final SplitKind[] KINDS = SplitKind.values();

  public LanceSplitSerializer() {
    super("Lance source splits", 2, 29);
  }

  @Override
  public void write(LanceSplit split, DataOutputView out) throws IOException {
    out.writeByte(split.kind().ordinal());
    out.writeInt(split.fragmentId());
    out.writeLong(split.version());
    out.writeLong(split.commitMillis());
    out.writeLong(split.rowsEmitted());
  }

  @Override
  public LanceSplit read(DataInputView in) throws IOException {
    int kind = in.readByte();
    if (kind < 0 || kind >= KINDS.length) {
      throw new IOException("Unknown Lance split kind " + kind);
    }
    return new LanceSplit(KINDS[kind], in.readInt(), in.readLong(), in.readLong(), in.readLong());
  }
}
