package dev.flinklance.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/** Contents of local directories, compared byte for byte. */
public final class TestFiles {
  private TestFiles() {}

  /** SHA-256 of every file under {@code root}, by path relative to it (empty if it is absent). */
  public static Map<String, String> digests(Path root) {
    Map<String, String> digests = new TreeMap<>();
    if (!Files.exists(root)) {
      return digests;
    }
    try (Stream<Path> files = Files.walk(root)) {
      for (Path file : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
        try (InputStream content = Files.newInputStream(file)) {
          digests.put(root.relativize(file).toString(), sha256(content));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return digests;
  }

  /** Deletes {@code root} and everything under it (a test's scratch directory). */
  public static void deleteRecursively(Path root) throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      files.sorted((a, b) -> b.compareTo(a)).forEach(p -> p.toFile().delete());
    }
  }

  public static String sha256(InputStream content) throws IOException {
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      byte[] buffer = new byte[64 * 1024];
      for (int read; (read = content.read(buffer)) > 0; ) {
        digest.update(buffer, 0, read);
      }
      return HexFormat.of().formatHex(digest.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
