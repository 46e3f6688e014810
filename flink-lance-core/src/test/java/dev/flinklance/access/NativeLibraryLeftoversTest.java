package dev.flinklance.access;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.JniLoader;

/**
 * Only old, unmapped copies of Lance's native library are removed, as /proc tells which are mapped;
 * nothing is removed without /proc.
 */
class NativeLibraryLeftoversTest {
  @TempDir Path tmp;
  @TempDir Path proc;

  private Path copy(String name, boolean old) throws Exception {
    Path copy = Files.write(tmp.resolve(name), new byte[] {1, 2, 3});
    if (old) {
      Files.setLastModifiedTime(
          copy,
          FileTime.from(Instant.now().minus(NativeLibraryLeftovers.MIN_AGE).minusSeconds(60)));
    }
    return copy;
  }

  @Test
  void removesOnlyOldCopiesNoProcessMaps() throws Exception {
    Path leftover = copy("liblance_jni111.so", true);
    Path loaded = copy("liblance_jni222.so", true);
    Path unpacking = copy("liblance_jni333.so", false);
    Path other = copy("libother_jni444.so", true);
    Path notACopy = copy("liblance_jni_mine.so", true);
    Files.createDirectories(proc.resolve("self"));
    Files.createDirectories(proc.resolve("4242"));
    Files.write(
        proc.resolve("4242/maps"),
        List.of(
            "7f0000000000-7f0000001000 r-xp 00000000 08:01 12 " + loaded.toRealPath(),
            "7f0000002000-7f0000003000 r--p 00000000 08:01 13 /usr/lib/libc.so.6"));
    Files.createDirectories(proc.resolve("4343")); // exited since the listing: no maps

    assertThat(NativeLibraryLeftovers.remove(tmp, proc)).isEqualTo(1);

    assertThat(leftover).doesNotExist();
    assertThat(loaded).as("a process maps it").exists();
    assertThat(unpacking).as("young: a JVM may be unpacking it").exists();
    assertThat(other).exists();
    assertThat(notACopy).as("not a name the loader gives").exists();
  }

  @Test
  void withoutProcNothingIsRemoved() throws Exception {
    Path leftover = copy("liblance_jni111.so", true);

    assertThat(NativeLibraryLeftovers.remove(tmp, proc.resolve("missing"))).isZero();

    assertThat(leftover).exists();
  }

  @Test
  void theRealProcShowsThisJvmsCopyMapped() throws Exception {
    Assumptions.assumeTrue(Files.isReadable(Path.of("/proc/self/maps")), "Linux /proc");
    JniLoader.ensureLoaded();
    String mine =
        Files.readAllLines(Path.of("/proc/self/maps")).stream()
            .filter(line -> line.contains("liblance_jni") && line.endsWith(".so"))
            .findFirst()
            .map(line -> line.substring(line.indexOf('/')))
            .orElseThrow();

    assertThat(NativeLibraryLeftovers.mappedFiles(Path.of("/proc")).orElseThrow())
        .contains(Path.of(mine));
  }
}
