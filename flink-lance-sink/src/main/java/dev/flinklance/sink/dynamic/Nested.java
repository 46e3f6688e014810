package dev.flinklance.sink.dynamic;

import java.io.IOException;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * A value in another serializer's versioned form inside ours: its format version and bytes, so that
 * the single-table forms (and their evolution) are reused as they are.
 */
final class Nested {
  private Nested() {}

  static <T> void write(SimpleVersionedSerializer<T> serializer, T value, DataOutputView out)
      throws IOException {
    byte[] bytes = serializer.serialize(value);
    out.writeInt(serializer.getVersion());
    out.writeInt(bytes.length);
    out.write(bytes);
  }

  static <T> T read(SimpleVersionedSerializer<T> serializer, DataInputView in) throws IOException {
    int version = in.readInt();
    byte[] bytes = new byte[in.readInt()];
    in.readFully(bytes);
    return serializer.deserialize(version, bytes);
  }
}
