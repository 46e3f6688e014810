package dev.flinklance.compactor.codec;

import java.io.IOException;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.io.SimpleVersionedSerialization;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.util.InstantiationUtil;

/**
 * A Flink {@link TypeSerializer} over a {@link SimpleVersionedSerializer}, usable in operator state
 * (Flink's own proxy is not: it has no snapshot). Every record carries its format version, so the
 * serializer is always compatible as is; the snapshot names the versioned serializer's class.
 */
@Internal
public final class VersionedTypeSerializer<T> extends TypeSerializer<T> {
  private static final long serialVersionUID = 1L;

  private final Class<? extends SimpleVersionedSerializer<T>> serializerClass;
  private transient SimpleVersionedSerializer<T> serializer;

  public VersionedTypeSerializer(Class<? extends SimpleVersionedSerializer<T>> serializerClass) {
    this.serializerClass = serializerClass;
  }

  private SimpleVersionedSerializer<T> serializer() {
    if (serializer == null) {
      serializer = instantiate(serializerClass);
    }
    return serializer;
  }

  private static <T> SimpleVersionedSerializer<T> instantiate(
      Class<? extends SimpleVersionedSerializer<T>> type) {
    try {
      return type.getDeclaredConstructor().newInstance();
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("Cannot create " + type.getName(), e);
    }
  }

  @Override
  public boolean isImmutableType() {
    return false;
  }

  @Override
  public TypeSerializer<T> duplicate() {
    return new VersionedTypeSerializer<>(serializerClass);
  }

  @Override
  public T createInstance() {
    return null;
  }

  @Override
  public T copy(T from) {
    try {
      return SimpleVersionedSerialization.readVersionAndDeSerialize(
          serializer(), SimpleVersionedSerialization.writeVersionAndSerialize(serializer(), from));
    } catch (IOException e) {
      throw new IllegalStateException("Cannot copy " + from, e);
    }
  }

  @Override
  public T copy(T from, T reuse) {
    return copy(from);
  }

  @Override
  public int getLength() {
    return -1;
  }

  @Override
  public void serialize(T record, DataOutputView target) throws IOException {
    SimpleVersionedSerialization.writeVersionAndSerialize(serializer(), record, target);
  }

  @Override
  public T deserialize(DataInputView source) throws IOException {
    return SimpleVersionedSerialization.readVersionAndDeSerialize(serializer(), source);
  }

  @Override
  public T deserialize(T reuse, DataInputView source) throws IOException {
    return deserialize(source);
  }

  @Override
  public void copy(DataInputView source, DataOutputView target) throws IOException {
    serialize(deserialize(source), target);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof VersionedTypeSerializer<?> that
        && serializerClass.equals(that.serializerClass);
  }

  @Override
  public int hashCode() {
    return serializerClass.hashCode();
  }

  @Override
  public TypeSerializerSnapshot<T> snapshotConfiguration() {
    return new Snapshot<>(serializerClass);
  }

  /** Names the versioned serializer's class. */
  public static final class Snapshot<T> implements TypeSerializerSnapshot<T> {
    private Class<? extends SimpleVersionedSerializer<T>> serializerClass;

    public Snapshot() {}

    Snapshot(Class<? extends SimpleVersionedSerializer<T>> serializerClass) {
      this.serializerClass = serializerClass;
    }

    @Override
    public int getCurrentVersion() {
      return 1;
    }

    @Override
    public void writeSnapshot(DataOutputView out) throws IOException {
      out.writeUTF(serializerClass.getName());
    }

    @Override
    @SuppressWarnings("unchecked")
    public void readSnapshot(int readVersion, DataInputView in, ClassLoader classLoader)
        throws IOException {
      serializerClass =
          (Class<? extends SimpleVersionedSerializer<T>>)
              InstantiationUtil.<SimpleVersionedSerializer<T>>resolveClassByName(in, classLoader);
    }

    @Override
    public TypeSerializer<T> restoreSerializer() {
      return new VersionedTypeSerializer<>(serializerClass);
    }

    @Override
    public TypeSerializerSchemaCompatibility<T> resolveSchemaCompatibility(
        TypeSerializerSnapshot<T> oldSnapshot) {
      return oldSnapshot instanceof Snapshot<T> old && serializerClass.equals(old.serializerClass)
          ? TypeSerializerSchemaCompatibility.compatibleAsIs()
          : TypeSerializerSchemaCompatibility.incompatible();
    }
  }
}
