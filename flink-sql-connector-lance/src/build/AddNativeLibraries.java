import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Build step of flink-sql-connector-lance (run by the pom as a single-file Java program): writes a
 * jar made of a base jar plus entries of other jars, copying every entry's compressed bytes as they
 * are.
 *
 * <p>Why not the shade plugin: it inflates and deflates again every entry, and lance-core's native
 * libraries are 500 MB uncompressed (about a minute of CPU per build for the two jars). Here the
 * shade plugin builds the jar without native libraries and this step adds them without touching
 * their bytes.
 *
 * <p>Usage: {@code java AddNativeLibraries.java <base.jar> <out.jar> <source.jar>=<prefix>...}:
 * every entry of a source jar whose name starts with its prefix is added after the base jar's
 * entries. {@code out} may be {@code base}. Plain zip only (no zip64: fewer than 65,535 entries,
 * under 4 GB); duplicate names are an error.
 */
public final class AddNativeLibraries {
  private static final int LOCAL_HEADER = 0x04034b50;
  private static final int CENTRAL_HEADER = 0x02014b50;
  private static final int END_OF_CENTRAL_DIRECTORY = 0x06054b50;

  /** An entry of a source zip: its central-directory record and where its bytes are. */
  private record Entry(String name, byte[] centralRecord, long localOffset, long localEnd) {}

  private record Selection(Path jar, String prefix) {}

  public static void main(String[] args) throws IOException {
    if (args.length < 2) {
      throw new IllegalArgumentException(
          "usage: AddNativeLibraries <base.jar> <out.jar> [<source.jar>=<prefix>...]");
    }
    Path base = Path.of(args[0]);
    Path out = Path.of(args[1]);
    List<Selection> selections = new ArrayList<>();
    for (int i = 2; i < args.length; i++) {
      int eq = args[i].lastIndexOf('=');
      if (eq < 0) {
        throw new IllegalArgumentException("expected <source.jar>=<prefix>, got " + args[i]);
      }
      selections.add(new Selection(Path.of(args[i].substring(0, eq)), args[i].substring(eq + 1)));
    }
    Path tmp = out.resolveSibling(out.getFileName() + ".tmp");
    int added = write(base, selections, tmp);
    Files.move(tmp, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    System.out.printf("%s: %d entries added to %s%n", out, added, base.getFileName());
  }

  private static int write(Path base, List<Selection> selections, Path target) throws IOException {
    Set<String> names = new HashSet<>();
    List<byte[]> central = new ArrayList<>();
    int added = 0;
    try (FileChannel output =
        FileChannel.open(
            target,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
      try (FileChannel input = FileChannel.open(base)) {
        for (Entry entry : entries(base, input)) {
          copy(entry, input, output, names, central, base);
        }
      }
      for (Selection selection : selections) {
        int matched = 0;
        try (FileChannel input = FileChannel.open(selection.jar())) {
          for (Entry entry : entries(selection.jar(), input)) {
            if (entry.name().startsWith(selection.prefix())) {
              copy(entry, input, output, names, central, selection.jar());
              matched++;
            }
          }
        }
        if (matched == 0) {
          throw new IllegalStateException(
              "no entry of " + selection.jar() + " starts with " + selection.prefix());
        }
        added += matched;
      }
      long centralStart = output.position();
      for (byte[] record : central) {
        write(output, ByteBuffer.wrap(record));
      }
      long centralSize = output.position() - centralStart;
      if (central.size() >= 0xFFFF || output.position() >= 0xFFFFFFFFL) {
        throw new IllegalStateException(
            target + " would need zip64, which this step does not write");
      }
      ByteBuffer end = ByteBuffer.allocate(22).order(ByteOrder.LITTLE_ENDIAN);
      end.putInt(END_OF_CENTRAL_DIRECTORY).putShort((short) 0).putShort((short) 0);
      end.putShort((short) central.size()).putShort((short) central.size());
      end.putInt((int) centralSize).putInt((int) centralStart).putShort((short) 0);
      write(output, end.flip());
    }
    return added;
  }

  /** Copies an entry's local header, data and data descriptor; records its central record. */
  private static void copy(
      Entry entry,
      FileChannel input,
      FileChannel output,
      Set<String> names,
      List<byte[]> central,
      Path source)
      throws IOException {
    if (!names.add(entry.name())) {
      throw new IllegalStateException("duplicate entry " + entry.name() + " (from " + source + ")");
    }
    long newOffset = output.position();
    long length = entry.localEnd() - entry.localOffset();
    long done = 0;
    while (done < length) {
      done += input.transferTo(entry.localOffset() + done, length - done, output);
    }
    byte[] record = entry.centralRecord().clone();
    ByteBuffer.wrap(record).order(ByteOrder.LITTLE_ENDIAN).putInt(42, (int) newOffset);
    central.add(record);
  }

  /** The entries of a zip, in file order, each spanning up to the next one's local header. */
  private static List<Entry> entries(Path zip, FileChannel channel) throws IOException {
    long size = channel.size();
    int tail = (int) Math.min(size, 22 + 0xFFFF);
    ByteBuffer end = read(channel, size - tail, tail);
    int eocd = -1;
    for (int i = tail - 22; i >= 0; i--) {
      if (end.getInt(i) == END_OF_CENTRAL_DIRECTORY) {
        eocd = i;
        break;
      }
    }
    if (eocd < 0) {
      throw new IllegalStateException(zip + " is not a zip file");
    }
    int count = Short.toUnsignedInt(end.getShort(eocd + 10));
    long centralSize = Integer.toUnsignedLong(end.getInt(eocd + 12));
    long centralStart = Integer.toUnsignedLong(end.getInt(eocd + 16));
    if (count == 0xFFFF || centralStart == 0xFFFFFFFFL) {
      throw new IllegalStateException(zip + " is a zip64 file, which this step does not read");
    }
    ByteBuffer directory = read(channel, centralStart, (int) centralSize);
    List<Entry> entries = new ArrayList<>(count);
    int at = 0;
    for (int i = 0; i < count; i++) {
      if (directory.getInt(at) != CENTRAL_HEADER) {
        throw new IllegalStateException(zip + ": bad central directory record " + i);
      }
      int nameLength = Short.toUnsignedInt(directory.getShort(at + 28));
      int extraLength = Short.toUnsignedInt(directory.getShort(at + 30));
      int commentLength = Short.toUnsignedInt(directory.getShort(at + 32));
      long localOffset = Integer.toUnsignedLong(directory.getInt(at + 42));
      int recordLength = 46 + nameLength + extraLength + commentLength;
      byte[] record = new byte[recordLength];
      directory.get(at, record);
      String name = new String(record, 46, nameLength, java.nio.charset.StandardCharsets.UTF_8);
      entries.add(new Entry(name, record, localOffset, -1));
      at += recordLength;
    }
    entries.sort(Comparator.comparingLong(Entry::localOffset));
    List<Entry> spans = new ArrayList<>(count);
    for (int i = 0; i < entries.size(); i++) {
      Entry e = entries.get(i);
      long next = i + 1 < entries.size() ? entries.get(i + 1).localOffset() : centralStart;
      if (read(channel, e.localOffset(), 4).getInt(0) != LOCAL_HEADER) {
        throw new IllegalStateException(zip + ": no local header for " + e.name());
      }
      spans.add(new Entry(e.name(), e.centralRecord(), e.localOffset(), next));
    }
    return spans;
  }

  private static ByteBuffer read(FileChannel channel, long position, int length)
      throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
    while (buffer.hasRemaining()) {
      if (channel.read(buffer, position + buffer.position()) < 0) {
        throw new UncheckedIOException(new IOException("unexpected end of file"));
      }
    }
    return buffer.flip();
  }

  private static void write(FileChannel channel, ByteBuffer buffer) throws IOException {
    while (buffer.hasRemaining()) {
      channel.write(buffer);
    }
  }

  private AddNativeLibraries() {}
}
