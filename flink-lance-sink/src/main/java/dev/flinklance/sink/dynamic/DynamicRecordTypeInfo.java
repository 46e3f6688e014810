package dev.flinklance.sink.dynamic;

import dev.flinklance.state.OpaqueTypeInfo;
import java.lang.reflect.Type;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * Flink's type of {@link DynamicRecord} streams (found through the record's {@code @TypeInfo}), so
 * that records travel with {@link DynamicRecordSerializer} rather than Kryo.
 */
@Internal
public final class DynamicRecordTypeInfo extends OpaqueTypeInfo<DynamicRecord> {
  private static final long serialVersionUID = 1L;

  public DynamicRecordTypeInfo() {
    super(DynamicRecord.class);
  }

  @Override
  protected TypeSerializer<DynamicRecord> serializer() {
    return new DynamicRecordSerializer();
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
