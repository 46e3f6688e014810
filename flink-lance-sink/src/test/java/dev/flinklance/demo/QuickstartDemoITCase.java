package dev.flinklance.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The demo as a user runs it, in its own JVM: it writes the table, or says why not and exits 1. */
class QuickstartDemoITCase {
  @TempDir Path dir;

  @Test
  void writesTheTableAndPrintsItsVersions() throws Exception {
    Path table = dir.resolve("events.lance");
    Result result = runDemo(table.toString(), "2000");

    assertThat(result.exitCode()).as(result.output()).isZero();
    assertThat(result.output()).contains("rows: 2,000").contains("quickstart-demo");
  }

  @Test
  void aPathLanceCannotCreateEndsTheDemoWithTheMessage() throws Exception {
    Result result = runDemo("/proc/no-demo-here.lance", "1000");

    assertThat(result.exitCode()).as(result.output()).isEqualTo(1);
    assertThat(result.output())
        .contains(
            "The demo job failed: Lance table '/proc/no-demo-here.lance': cannot create the table");
  }

  private record Result(int exitCode, String output) {}

  private Result runDemo(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("--add-opens=java.base/java.nio=ALL-UNNAMED");
    command.add("-Xmx1g");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(QuickstartDemo.class.getName());
    command.addAll(List.of(args));
    Path output = dir.resolve("demo.out");
    Process demo =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(output.toFile())
            .start();
    // A sanity bound, not a timing assertion: a restart loop would never end.
    if (!demo.waitFor(3, TimeUnit.MINUTES)) {
      demo.destroyForcibly();
      throw new AssertionError("the demo did not end: " + Files.readString(output));
    }
    return new Result(demo.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
  }
}
