package dev.flinklance.state;

import dev.flinklance.compat.SerializerTypeInformation;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * Flink's type of values that travel and sit in state as one opaque field, always through the
 * connector's own serializer, never Kryo: no fields for Flink to see, not a key, equal to another
 * of the same class and value type.
 */
@Internal
public abstract class OpaqueTypeInfo<T> extends SerializerTypeInformation<T> {
  private static final long serialVersionUID = 1L;

  private final Class<T> type;

  protected OpaqueTypeInfo(Class<T> type) {
    this.type = type;
  }

  /** The serializer of the values. */
  protected abstract TypeSerializer<T> serializer();

  @Override
  public final TypeSerializer<T> createSerializer(SerializerConfig config) {
    return serializer();
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
  public String toString() {
    return getClass().getSimpleName() + "<" + type.getSimpleName() + ">";
  }

  @Override
  public boolean equals(Object other) {
    return other != null
        && other.getClass() == getClass()
        && type.equals(((OpaqueTypeInfo<?>) other).type);
  }

  @Override
  public int hashCode() {
    return getClass().hashCode() * 31 + type.hashCode();
  }

  @Override
  public boolean canEqual(Object other) {
    return other != null && other.getClass() == getClass();
  }
}
