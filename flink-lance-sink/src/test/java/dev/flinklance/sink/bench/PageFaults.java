package dev.flinklance.sink.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The JVM's page faults so far, from /proc/self/stat (every thread: Flink's, Lance's, ours). */
final class PageFaults {
  private static final Path STAT = Path.of("/proc/self/stat");

  private PageFaults() {}

  /** Minor plus major faults of this process, or -1 where /proc is not there. */
  static long sofar() {
    try {
      String stat = Files.readString(STAT);
      // Fields after the command name, which is in parentheses and may contain spaces.
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Long.parseLong(fields[7]) + Long.parseLong(fields[9]); // minflt, majflt
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }
}
