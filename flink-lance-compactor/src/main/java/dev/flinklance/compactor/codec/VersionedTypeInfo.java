package dev.flinklance.compactor.codec;

import dev.flinklance.state.OpaqueTypeInfo;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * Type information for messages that travel between the compactor's operators and sit in their
 * state: always through an explicit, versioned serializer, never Kryo.
 */
@Internal
public final class VersionedTypeInfo<T> extends OpaqueTypeInfo<T> {
  private static final long serialVersionUID = 1L;

  private final Class<? extends SimpleVersionedSerializer<T>> serializer;

  public VersionedTypeInfo(
      Class<T> type, Class<? extends SimpleVersionedSerializer<T>> serializer) {
    super(type);
    this.serializer = serializer;
  }

  @Override
  protected TypeSerializer<T> serializer() {
    return new VersionedTypeSerializer<>(serializer);
  }
}
