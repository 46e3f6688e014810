package dev.flinklance.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A Java program in its own JVM, for tests that need a real separate process (a fresh class path, a
 * process to {@code kill -9}). Output goes to a log file; the process is ended by its PID, forcibly
 * when it does not stop in time, and never outlives the test JVM.
 */
public final class JvmProcess implements AutoCloseable {
  /** The JVM flags Lance needs, as the build passes them to tests ({@code lance.jvm.opens}). */
  public static List<String> lanceJvmOpens() {
    String opens = System.getProperty("lance.jvm.opens", "");
    if (opens.isBlank()) {
      throw new IllegalStateException(
          "system property lance.jvm.opens is not set: run the test through Maven (failsafe sets"
              + " it from the parent pom)");
    }
    return Arrays.asList(opens.trim().split("\\s+"));
  }

  private final String name;
  private final Process process;
  private final Path log;

  private JvmProcess(String name, Process process, Path log) {
    this.name = name;
    this.process = process;
    this.log = log;
    // a crashed or interrupted test run must not leave JVMs behind
    Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly));
  }

  public static Builder builder(String name, String mainClass) {
    return new Builder(name, mainClass);
  }

  public String name() {
    return name;
  }

  public long pid() {
    return process.pid();
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  public Path log() {
    return log;
  }

  /** The process's output so far (stdout and stderr). */
  public String output() {
    try {
      return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Waits for the process to end by itself.
   *
   * @return its exit code
   * @throws IllegalStateException with the output when it is still running after {@code timeout}
   *     (it is then killed)
   */
  public int waitFor(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      kill();
      throw new IllegalStateException(
          name + " did not end within " + timeout + "; killed. Output:\n" + output());
    }
    return process.exitValue();
  }

  /** {@code kill -9}: the process gets no chance to clean up. */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  /** SIGTERM, then SIGKILL if it is still running after {@code grace}. */
  public void stop(Duration grace) throws InterruptedException {
    if (!process.isAlive()) {
      return;
    }
    process.destroy();
    if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
      kill();
    }
  }

  @Override
  public void close() throws InterruptedException {
    stop(Duration.ofSeconds(10));
  }

  /** Builds and starts a {@link JvmProcess}. */
  public static final class Builder {
    private final String name;
    private final String mainClass;
    private final List<Path> classpath = new ArrayList<>();
    private final List<String> jvmOptions = new ArrayList<>();
    private final List<String> args = new ArrayList<>();
    private final Map<String, String> environment = new TreeMap<>();
    private Path log;
    private Path workingDirectory;

    private Builder(String name, String mainClass) {
      this.name = name;
      this.mainClass = mainClass;
    }

    public Builder classpath(List<Path> entries) {
      classpath.addAll(entries);
      return this;
    }

    public Builder classpath(Path... entries) {
      return classpath(List.of(entries));
    }

    public Builder jvmOptions(List<String> options) {
      jvmOptions.addAll(options);
      return this;
    }

    public Builder jvmOptions(String... options) {
      return jvmOptions(List.of(options));
    }

    public Builder args(List<String> arguments) {
      args.addAll(arguments);
      return this;
    }

    public Builder args(String... arguments) {
      return args(List.of(arguments));
    }

    public Builder environment(String key, String value) {
      environment.put(key, value);
      return this;
    }

    /** Where stdout and stderr go (appended). */
    public Builder log(Path file) {
      this.log = file;
      return this;
    }

    public Builder workingDirectory(Path directory) {
      this.workingDirectory = directory;
      return this;
    }

    /** The command line as it will run (for logs and error messages). */
    public List<String> command() {
      List<String> command = new ArrayList<>();
      command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      command.addAll(jvmOptions);
      command.add("-cp");
      command.add(
          classpath.stream().map(Path::toString).collect(Collectors.joining(File.pathSeparator)));
      command.add(mainClass);
      command.addAll(args);
      return command;
    }

    public JvmProcess start() throws IOException {
      if (log == null) {
        throw new IllegalStateException("no log file for " + name);
      }
      Files.createDirectories(log.toAbsolutePath().getParent());
      ProcessBuilder builder =
          new ProcessBuilder(command())
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
              .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
      if (workingDirectory != null) {
        builder.directory(workingDirectory.toFile());
      }
      builder.environment().putAll(environment);
      return new JvmProcess(name, builder.start(), log);
    }
  }

  /** The last {@code lines} lines of a text file, for failure reports. */
  public static String tail(Path file, int lines) {
    try (Stream<String> all = Files.lines(file, StandardCharsets.UTF_8)) {
      List<String> list = all.toList();
      return String.join("\n", list.subList(Math.max(0, list.size() - lines), list.size()));
    } catch (IOException | UncheckedIOException e) {
      return "(cannot read " + file + ": " + e.getMessage() + ")";
    }
  }
}
