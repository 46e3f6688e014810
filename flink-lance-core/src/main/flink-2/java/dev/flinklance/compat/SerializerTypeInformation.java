package dev.flinklance.compat;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeinfo.TypeInformation;

/**
 * A {@link TypeInformation} that builds its serializer from a {@code SerializerConfig} only. Flink
 * 1.20 also asks for one from an {@code ExecutionConfig}, which Flink 2.0 removed.
 */
@Internal
public abstract class SerializerTypeInformation<T> extends TypeInformation<T> {
  private static final long serialVersionUID = 1L;
}
