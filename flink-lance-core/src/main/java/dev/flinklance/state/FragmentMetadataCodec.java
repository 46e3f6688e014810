package dev.flinklance.state;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.lance.FragmentMetadata;
import org.lance.fragment.DataFile;
import org.lance.fragment.DeletionFile;
import org.lance.fragment.DeletionFileType;
import org.lance.fragment.RowIdMeta;
import org.lance.fragment.VersionMeta;

/**
 * Field-by-field binary form of Lance {@link FragmentMetadata}, for Flink state and the wire.
 * Explicit rather than Java serialization so that a savepoint does not depend on Lance's class
 * layout; a serializer that embeds this bumps its own version when the layout changes.
 */
@Internal
public final class FragmentMetadataCodec {

  private FragmentMetadataCodec() {}

  public static void writeList(List<FragmentMetadata> fragments, DataOutputView out)
      throws IOException {
    out.writeInt(fragments.size());
    for (FragmentMetadata fragment : fragments) {
      write(fragment, out);
    }
  }

  public static List<FragmentMetadata> readList(DataInputView in) throws IOException {
    int size = in.readInt();
    List<FragmentMetadata> fragments = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      fragments.add(read(in));
    }
    return fragments;
  }

  static void write(FragmentMetadata fragment, DataOutputView out) throws IOException {
    out.writeInt(fragment.getId());
    out.writeLong(fragment.getPhysicalRows());
    out.writeInt(fragment.getFiles().size());
    for (DataFile file : fragment.getFiles()) {
      writeString(file.getPath(), out);
      writeInts(file.getFields(), out);
      writeInts(file.getColumnIndices(), out);
      out.writeInt(file.getFileMajorVersion());
      out.writeInt(file.getFileMinorVersion());
      writeNullableLong(file.getFileSizeBytes(), out);
      writeNullableInt(file.getBaseId().orElse(null), out);
    }
    DeletionFile deletion = fragment.getDeletionFile();
    out.writeBoolean(deletion != null);
    if (deletion != null) {
      out.writeLong(deletion.getId());
      out.writeLong(deletion.getReadVersion());
      writeNullableLong(deletion.getNumDeletedRows(), out);
      writeString(deletion.getFileType() == null ? null : deletion.getFileType().name(), out);
      writeNullableInt(deletion.getBaseId().orElse(null), out);
    }
    RowIdMeta rowIds = fragment.getRowIdMeta();
    writeString(rowIds == null ? null : rowIds.getMetadata(), out);
    writeString(metadataOf(fragment.getCreatedAtVersionMeta()), out);
    writeString(metadataOf(fragment.getLastUpdatedAtVersionMeta()), out);
  }

  static FragmentMetadata read(DataInputView in) throws IOException {
    int id = in.readInt();
    long physicalRows = in.readLong();
    int fileCount = in.readInt();
    List<DataFile> files = new ArrayList<>(fileCount);
    for (int i = 0; i < fileCount; i++) {
      files.add(
          new DataFile(
              readString(in),
              readInts(in),
              readInts(in),
              in.readInt(),
              in.readInt(),
              readNullableLong(in),
              readNullableInt(in)));
    }
    DeletionFile deletion = null;
    if (in.readBoolean()) {
      long deletionId = in.readLong();
      long readVersion = in.readLong();
      Long deleted = readNullableLong(in);
      String type = readString(in);
      deletion =
          new DeletionFile(
              deletionId,
              readVersion,
              deleted,
              type == null ? null : DeletionFileType.valueOf(type),
              readNullableInt(in));
    }
    String rowIds = readString(in);
    String createdAt = readString(in);
    String lastUpdatedAt = readString(in);
    return new FragmentMetadata(
        id,
        files,
        physicalRows,
        deletion,
        rowIds == null ? null : new RowIdMeta(rowIds),
        createdAt == null ? null : new VersionMeta(createdAt),
        lastUpdatedAt == null ? null : new VersionMeta(lastUpdatedAt));
  }

  private static String metadataOf(VersionMeta meta) {
    return meta == null ? null : meta.getMetadata();
  }

  /** Length-prefixed UTF-8; unlike writeUTF it has no 64 KiB limit (row-id JSON can be large). */
  public static void writeString(String value, DataOutputView out) throws IOException {
    if (value == null) {
      out.writeInt(-1);
      return;
    }
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    out.writeInt(bytes.length);
    out.write(bytes);
  }

  public static String readString(DataInputView in) throws IOException {
    int length = in.readInt();
    if (length < 0) {
      return null;
    }
    byte[] bytes = new byte[length];
    in.readFully(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  private static void writeInts(int[] values, DataOutputView out) throws IOException {
    out.writeInt(values.length);
    for (int value : values) {
      out.writeInt(value);
    }
  }

  private static int[] readInts(DataInputView in) throws IOException {
    int[] values = new int[in.readInt()];
    for (int i = 0; i < values.length; i++) {
      values[i] = in.readInt();
    }
    return values;
  }

  private static void writeNullableLong(Long value, DataOutputView out) throws IOException {
    out.writeBoolean(value != null);
    if (value != null) {
      out.writeLong(value);
    }
  }

  private static Long readNullableLong(DataInputView in) throws IOException {
    return in.readBoolean() ? in.readLong() : null;
  }

  private static void writeNullableInt(Integer value, DataOutputView out) throws IOException {
    out.writeBoolean(value != null);
    if (value != null) {
      out.writeInt(value);
    }
  }

  private static Integer readNullableInt(DataInputView in) throws IOException {
    return in.readBoolean() ? in.readInt() : null;
  }
}
