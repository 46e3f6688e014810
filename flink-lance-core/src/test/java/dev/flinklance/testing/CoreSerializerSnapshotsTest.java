package dev.flinklance.testing;

import dev.flinklance.state.FormatSerializer;
import java.util.List;

/**
 * flink-lance-core has no format of its own: its codecs are parts of other modules' formats, which
 * keep their bytes. A serializer added here needs its snapshot in this list.
 */
class CoreSerializerSnapshotsTest extends SerializerSnapshots {

  @Override
  protected List<Snapshot<?>> snapshots() {
    return List.of();
  }

  @Override
  protected Class<?> mainClass() {
    return FormatSerializer.class;
  }
}
