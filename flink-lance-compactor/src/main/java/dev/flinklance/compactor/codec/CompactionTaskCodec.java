package dev.flinklance.compactor.codec;

import dev.flinklance.state.FragmentMetadataCodec;
import java.io.IOException;
import java.lang.reflect.Field;
import java.util.Optional;
import java.util.function.Consumer;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.lance.compaction.CompactionMode;
import org.lance.compaction.CompactionOptions;
import org.lance.compaction.CompactionTask;
import org.lance.compaction.TaskData;

/**
 * Field-by-field binary form of a Lance {@link CompactionTask} (its fragments, read version and
 * options), for Flink state and the wire. Like {@link FragmentMetadataCodec}: explicit, so that a
 * savepoint does not depend on Lance's class layout; serializers that embed it carry the version.
 */
@Internal
public final class CompactionTaskCodec {

  private CompactionTaskCodec() {}

  public static void write(CompactionTask task, DataOutputView out) throws IOException {
    out.writeLong(task.getReadVersion());
    FragmentMetadataCodec.writeList(task.getTaskData().getFragments(), out);
    writeOptions(task.getCompactionOptions(), out);
  }

  public static CompactionTask read(DataInputView in) throws IOException {
    long readVersion = in.readLong();
    TaskData data = new TaskData(FragmentMetadataCodec.readList(in));
    return new CompactionTask(data, readVersion, readOptions(in));
  }

  static void writeOptions(CompactionOptions options, DataOutputView out) throws IOException {
    writeLong(options.getTargetRowsPerFragment(), out);
    writeLong(options.getMaxRowsPerGroup(), out);
    writeLong(options.getMaxBytesPerFile(), out);
    writeBoolean(options.getMaterializeDeletions(), out);
    out.writeBoolean(options.getMaterializeDeletionsThreshold().isPresent());
    if (options.getMaterializeDeletionsThreshold().isPresent()) {
      out.writeFloat(options.getMaterializeDeletionsThreshold().get());
    }
    writeLong(options.getNumThreads(), out);
    writeLong(options.getBatchSize(), out);
    writeBoolean(options.getDeferIndexRemap(), out);
    FragmentMetadataCodec.writeString(compactionModeName(options), out);
    writeLong(options.getBinaryCopyReadBatchBytes(), out);
    writeLong(options.getMaxSourceFragments(), out);
  }

  static CompactionOptions readOptions(DataInputView in) throws IOException {
    CompactionOptions.Builder builder = CompactionOptions.builder();
    readLong(in, builder::withTargetRowsPerFragment);
    readLong(in, builder::withMaxRowsPerGroup);
    readLong(in, builder::withMaxBytesPerFile);
    readBoolean(in, builder::withMaterializeDeletions);
    if (in.readBoolean()) {
      builder.withMaterializeDeletionsThreshold(in.readFloat());
    }
    readLong(in, builder::withNumThreads);
    readLong(in, builder::withBatchSize);
    readBoolean(in, builder::withDeferIndexRemap);
    String mode = FragmentMetadataCodec.readString(in);
    if (mode != null) {
      builder.withCompactionMode(compactionMode(mode));
    }
    readLong(in, builder::withBinaryCopyReadBatchBytes);
    readLong(in, builder::withMaxSourceFragments);
    return builder.build();
  }

  /**
   * lance-core 7.0.0's {@code getCompactionMode()} throws a ClassCastException for the options of a
   * planned task (their field holds the mode's string value, the getter casts it to the enum), so
   * the field is read directly. The builder stores the enum.
   */
  private static String compactionModeName(CompactionOptions options) throws IOException {
    try {
      Field field = CompactionOptions.class.getDeclaredField("compactionMode");
      field.setAccessible(true);
      Object mode = ((Optional<?>) field.get(options)).orElse(null);
      return mode instanceof CompactionMode known ? known.getValue() : (String) mode;
    } catch (ReflectiveOperationException e) {
      throw new IOException("Cannot read the compaction mode of " + options, e);
    }
  }

  private static CompactionMode compactionMode(String value) throws IOException {
    for (CompactionMode mode : CompactionMode.values()) {
      if (mode.getValue().equals(value) || mode.name().equals(value)) {
        return mode;
      }
    }
    throw new IOException("Unknown Lance compaction mode '" + value + "'");
  }

  private static void writeLong(Optional<Long> value, DataOutputView out) throws IOException {
    out.writeBoolean(value.isPresent());
    if (value.isPresent()) {
      out.writeLong(value.get());
    }
  }

  private static void readLong(DataInputView in, Consumer<Long> setter) throws IOException {
    if (in.readBoolean()) {
      setter.accept(in.readLong());
    }
  }

  private static void writeBoolean(Optional<Boolean> value, DataOutputView out) throws IOException {
    out.writeByte(value.isEmpty() ? 0 : value.get() ? 2 : 1);
  }

  private static void readBoolean(DataInputView in, Consumer<Boolean> setter) throws IOException {
    byte value = in.readByte();
    if (value != 0) {
      setter.accept(value == 2);
    }
  }
}
