import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashSet;
import java.util.Set;
import org.apache.commons.compress.archivers.zip.Zip64Mode;
import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipArchiveOutputStream;
import org.apache.commons.compress.archivers.zip.ZipFile;

/**
 * Build step of flink-sql-connector-lance (run by the pom as a single-file Java program with
 * commons-compress on its class path): writes a jar made of a base jar plus entries of other jars,
 * copying every entry's compressed bytes as they are (commons-compress's raw entry copy; zip64
 * where needed).
 *
 * <p>Why not the shade plugin: it inflates and deflates again every entry, and lance-core's native
 * libraries are 500 MB uncompressed (about a minute of CPU per build for the two jars). Here the
 * shade plugin builds the jar without native libraries and this step adds them without touching
 * their bytes.
 *
 * <p>Usage: {@code java -cp commons-compress.jar AddNativeLibraries.java <base.jar> <out.jar>
 * <source.jar>=<prefix>...}: every entry of a source jar whose name starts with its prefix is added
 * after the base jar's entries. {@code out} may be {@code base}. Duplicate names are an error.
 */
public final class AddNativeLibraries {

  public static void main(String[] args) throws IOException {
    if (args.length < 2) {
      throw new IllegalArgumentException(
          "usage: AddNativeLibraries <base.jar> <out.jar> [<source.jar>=<prefix>...]");
    }
    Path base = Path.of(args[0]);
    Path out = Path.of(args[1]);
    Path tmp = out.resolveSibling(out.getFileName() + ".tmp");
    Set<String> names = new HashSet<>();
    int added = 0;
    try (ZipArchiveOutputStream target = new ZipArchiveOutputStream(tmp)) {
      target.setUseZip64(Zip64Mode.AsNeeded);
      copy(base, "", names, target);
      for (int i = 2; i < args.length; i++) {
        int eq = args[i].lastIndexOf('=');
        if (eq < 0) {
          throw new IllegalArgumentException("expected <source.jar>=<prefix>, got " + args[i]);
        }
        Path source = Path.of(args[i].substring(0, eq));
        String prefix = args[i].substring(eq + 1);
        int matched = copy(source, prefix, names, target);
        if (matched == 0) {
          throw new IllegalStateException("no entry of " + source + " starts with " + prefix);
        }
        added += matched;
      }
    }
    Files.move(tmp, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    System.out.printf("%s: %d entries added to %s%n", out, added, base.getFileName());
  }

  /** Copies the entries of {@code source} whose names start with {@code prefix}, raw. */
  private static int copy(
      Path source, String prefix, Set<String> names, ZipArchiveOutputStream target)
      throws IOException {
    int[] copied = {0};
    try (ZipFile zip = ZipFile.builder().setPath(source).get()) {
      zip.copyRawEntries(
          target,
          (ZipArchiveEntry entry) -> {
            if (!entry.getName().startsWith(prefix)) {
              return false;
            }
            if (!names.add(entry.getName())) {
              throw new IllegalStateException(
                  "duplicate entry " + entry.getName() + " (from " + source + ")");
            }
            copied[0]++;
            return true;
          });
    }
    return copied[0];
  }

  private AddNativeLibraries() {}
}
