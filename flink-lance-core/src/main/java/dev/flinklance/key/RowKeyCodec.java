package dev.flinklance.key;

import dev.flinklance.state.FragmentMetadataCodec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Binary form of a list of {@link RowKey}s for write results and committables: each value carries
 * its kind, so a list reads back without knowing the key's columns.
 */
@Internal
public final class RowKeyCodec {
  private static final byte INTEGER = 0;
  private static final byte STRING = 1;
  private static final byte DATE = 2;

  private RowKeyCodec() {}

  public static void writeList(List<RowKey> keys, DataOutputView out) throws IOException {
    out.writeInt(keys.size());
    for (RowKey key : keys) {
      out.writeByte(key.size());
      for (int i = 0; i < key.size(); i++) {
        Object value = key.value(i);
        if (value instanceof Long number) {
          out.writeByte(INTEGER);
          out.writeLong(number);
        } else if (value instanceof Integer days) {
          out.writeByte(DATE);
          out.writeInt(days);
        } else {
          out.writeByte(STRING);
          FragmentMetadataCodec.writeString((String) value, out);
        }
      }
    }
  }

  public static List<RowKey> readList(DataInputView in) throws IOException {
    int count = in.readInt();
    List<RowKey> keys = new ArrayList<>(count);
    for (int k = 0; k < count; k++) {
      Object[] values = new Object[in.readByte()];
      for (int i = 0; i < values.length; i++) {
        byte kind = in.readByte();
        switch (kind) {
          case INTEGER:
            values[i] = in.readLong();
            break;
          case DATE:
            values[i] = in.readInt();
            break;
          case STRING:
            values[i] = FragmentMetadataCodec.readString(in);
            break;
          default:
            throw new IOException("unknown key value kind " + kind);
        }
      }
      keys.add(new RowKey(values));
    }
    return keys;
  }
}
