package dev.flinklance.state;

import java.io.IOException;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.DataOutputView;

/**
 * A serializer for what the connector keeps in checkpoints, savepoints and on the wire: one format
 * version, written field by field (never Java serialization of Lance classes, so state does not
 * depend on Lance's class layout). A subclass bumps its format when the layout changes; state of
 * another format is refused with a message that says what to do.
 */
@Internal
public abstract class FormatSerializer<T> implements SimpleVersionedSerializer<T> {
  private final String what;
  private final int format;
  private final int sizeHint;

  /**
   * @param what what is serialized, for messages ("pending Lance commits")
   * @param sizeHint initial buffer size in bytes
   */
  protected FormatSerializer(String what, int format, int sizeHint) {
    this.what = what;
    this.format = format;
    this.sizeHint = sizeHint;
  }

  protected abstract void write(T value, DataOutputView out) throws IOException;

  protected abstract T read(DataInputView in) throws IOException;

  /** Whether this serializer still reads an older format (by default it reads only its own). */
  protected boolean readsOlder(int format) {
    return false;
  }

  /** Reads a format {@link #readsOlder} accepts. */
  protected T readOlder(int format, DataInputView in) throws IOException {
    throw new UnsupportedOperationException("format " + format);
  }

  @Override
  public final int getVersion() {
    return format;
  }

  @Override
  public final byte[] serialize(T value) throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(sizeHint);
    write(value, out);
    return out.getCopyOfBuffer();
  }

  @Override
  public final T deserialize(int version, byte[] serialized) throws IOException {
    if (version != format && readsOlder(version)) {
      return readOlder(version, new DataInputDeserializer(serialized));
    }
    if (version != format) {
      throw new IOException(
          String.format(
              "The %s in this checkpoint or savepoint have format %d; this connector reads format"
                  + " %d. Restore it with the connector version that wrote it, let its pending work"
                  + " finish (stop-with-savepoint), then upgrade.",
              what, version, format));
    }
    return read(new DataInputDeserializer(serialized));
  }
}
