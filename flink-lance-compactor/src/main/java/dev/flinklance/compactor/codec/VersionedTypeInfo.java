package dev.flinklance.compactor.codec;

import java.util.Objects;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * Type information for messages that travel between the compactor's operators and sit in their
 * state: always through an explicit, versioned serializer, never Kryo.
 */
@Internal
public final class VersionedTypeInfo<T> extends TypeInformation<T> {
  private static final long serialVersionUID = 1L;

  private final Class<T> type;
  private final Class<? extends SimpleVersionedSerializer<T>> serializer;

  public VersionedTypeInfo(
      Class<T> type, Class<? extends SimpleVersionedSerializer<T>> serializer) {
    this.type = type;
    this.serializer = serializer;
  }

  @Override
  public boolean isBasicType() {
    return false;
  }

  @Override
  public boolean isTupleType() {
    return false;
  }

  @Override
  public int getArity() {
    return 1;
  }

  @Override
  public int getTotalFields() {
    return 1;
  }

  @Override
  public Class<T> getTypeClass() {
    return type;
  }

  @Override
  public boolean isKeyType() {
    return false;
  }

  @Override
  public TypeSerializer<T> createSerializer(SerializerConfig config) {
    return new VersionedTypeSerializer<>(serializer);
  }

  @Override
  public String toString() {
    return "VersionedTypeInfo<" + type.getSimpleName() + ">";
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof VersionedTypeInfo<?> that && type.equals(that.type);
  }

  @Override
  public int hashCode() {
    return Objects.hash(type);
  }

  @Override
  public boolean canEqual(Object other) {
    return other instanceof VersionedTypeInfo;
  }
}
