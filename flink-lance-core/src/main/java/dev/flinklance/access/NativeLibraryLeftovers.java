package dev.flinklance.access;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.time.Duration;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.VisibleForTesting;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes the copies of Lance's native library that JVMs killed before their exit left in the
 * temporary directory. lance-core 7.0.0 unpacks its 181 MB library to a new {@code
 * liblance_jni<digits>.so} there for every class loader that loads it and deletes it only at a
 * clean JVM exit: a TaskManager killed (kill -9, the OOM killer, a lost container) leaves each of
 * its copies behind, and a host's temporary directory fills up over weeks of failovers.
 *
 * <p>A copy is removed only if this JVM's user owns it, it is older than {@link #MIN_AGE} (a JVM
 * may be unpacking it), and no process whose memory maps this JVM can read maps it (Linux {@code
 * /proc}; a JVM that loaded the copy maps it). Where {@code /proc} is missing nothing is removed.
 * Once per JVM, in the background.
 */
@Internal
public final class NativeLibraryLeftovers {
  private static final Logger LOG = LoggerFactory.getLogger(NativeLibraryLeftovers.class);
  static final Duration MIN_AGE = Duration.ofHours(1);
  private static final String GLOB = "liblance_jni*.so";
  // exactly the names File.createTempFile gives the loader's copies: a digit run in between
  private static final Pattern COPY = Pattern.compile("liblance_jni\\d+\\.so");
  private static final AtomicBoolean STARTED = new AtomicBoolean();

  private NativeLibraryLeftovers() {}

  /** Starts the removal in a daemon thread, the first time only. */
  public static void removeOnce() {
    if (!STARTED.compareAndSet(false, true)) {
      return;
    }
    Thread thread =
        new Thread(
            () -> remove(Path.of(System.getProperty("java.io.tmpdir")), Path.of("/proc")),
            "lance-native-library-leftovers");
    thread.setDaemon(true);
    thread.start();
  }

  /**
   * @return how many copies were removed
   */
  @VisibleForTesting
  static int remove(Path directory, Path proc) {
    try {
      Optional<Set<Path>> mapped = mappedFiles(proc);
      String user = System.getProperty("user.name");
      if (mapped.isEmpty() || user == null) {
        return 0;
      }
      long newest = System.currentTimeMillis() - MIN_AGE.toMillis();
      int removed = 0;
      long bytes = 0;
      try (DirectoryStream<Path> copies = Files.newDirectoryStream(directory, GLOB)) {
        for (Path copy : copies) {
          PosixFileAttributes attributes = Files.readAttributes(copy, PosixFileAttributes.class);
          if (COPY.matcher(copy.getFileName().toString()).matches()
              && attributes.isRegularFile()
              && attributes.owner().getName().equals(user)
              && attributes.lastModifiedTime().toMillis() < newest
              && !mapped.get().contains(copy.toRealPath())) {
            Files.deleteIfExists(copy);
            removed++;
            bytes += attributes.size();
          }
        }
      }
      if (removed > 0) {
        LOG.info(
            "Removed {} copies of Lance's native library ({} MB) that killed JVMs left in {}",
            removed,
            bytes >> 20,
            directory);
      }
      return removed;
    } catch (IOException | RuntimeException e) {
      LOG.debug("Could not look for copies of Lance's native library left in {}", directory, e);
      return 0;
    }
  }

  /** Every copy mapped by a process whose maps are readable; empty without {@code /proc}. */
  @VisibleForTesting
  static Optional<Set<Path>> mappedFiles(Path proc) throws IOException {
    if (!Files.isDirectory(proc.resolve("self"))) {
      return Optional.empty();
    }
    Set<Path> mapped = new HashSet<>();
    try (Stream<Path> processes = Files.list(proc)) {
      for (Path process : (Iterable<Path>) processes::iterator) {
        if (!process.getFileName().toString().chars().allMatch(Character::isDigit)) {
          continue;
        }
        try (Stream<String> lines = Files.lines(process.resolve("maps"))) {
          lines
              .filter(line -> line.endsWith(".so") && line.contains("liblance_jni"))
              .forEach(line -> mapped.add(Path.of(line.substring(line.indexOf('/')))));
        } catch (IOException | RuntimeException e) {
          // gone since the listing, or another user's: that JVM unpacks copies of its own
        }
      }
    }
    return Optional.of(mapped);
  }
}
