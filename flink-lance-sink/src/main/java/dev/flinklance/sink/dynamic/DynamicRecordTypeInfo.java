package dev.flinklance.sink.dynamic;

import java.lang.reflect.Type;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * Flink's type of {@link DynamicRecord} streams (found through the record's {@code @TypeInfo}), so
 * that records travel with {@link DynamicRecordSerializer} rather than Kryo.
 */
@Internal
public final class DynamicRecordTypeInfo extends TypeInformation<DynamicRecord> {
  private static final long serialVersionUID = 1L;

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
  public Class<DynamicRecord> getTypeClass() {
    return DynamicRecord.class;
  }

  @Override
  public boolean isKeyType() {
    return false;
  }

  @Override
  public TypeSerializer<DynamicRecord> createSerializer(SerializerConfig config) {
    return new DynamicRecordSerializer();
  }

  @Override
  public String toString() {
    return "DynamicRecord";
  }

  @Override
  public boolean equals(Object obj) {
    return obj instanceof DynamicRecordTypeInfo;
  }

  @Override
  public int hashCode() {
    return DynamicRecordTypeInfo.class.hashCode();
  }

  @Override
  public boolean canEqual(Object obj) {
    return obj instanceof DynamicRecordTypeInfo;
  }

  /** The factory {@link DynamicRecord}'s {@code @TypeInfo} names. */
  public static final class Factory extends TypeInfoFactory<DynamicRecord> {
    @Override
    public TypeInformation<DynamicRecord> createTypeInfo(
        Type type, Map<String, TypeInformation<?>> genericParameters) {
      return new DynamicRecordTypeInfo();
    }
  }
}
