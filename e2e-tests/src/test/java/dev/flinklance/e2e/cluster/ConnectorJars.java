package dev.flinklance.e2e.cluster;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** The connector jar the build made, and job jars built on it the way users build theirs. */
public final class ConnectorJars {
  private ConnectorJars() {}

  /**
   * The shaded connector jar for this machine's platform (a dependency of this module, so the build
   * makes it first).
   */
  public static Path connectorJar() {
    String os = System.getProperty("os.name");
    String arch = System.getProperty("os.arch");
    assumeTrue(
        os.equals("Linux") && (arch.equals("amd64") || arch.equals("x86_64")),
        "the e2e tests deploy the linux-x86_64 connector jar; this machine is " + os + "/" + arch);
    return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
        .map(Path::of)
        .filter(p -> p.getFileName().toString().startsWith("flink-sql-connector-lance-"))
        .filter(p -> p.getFileName().toString().endsWith("-linux-x86_64.jar"))
        .findFirst()
        .orElseThrow(
            () ->
                new IllegalStateException(
                    "flink-sql-connector-lance (linux-x86_64) is not on the test class path:"
                        + " run the e2e tests through Maven with -am"));
  }

  /**
   * A job jar as a user builds one: the shaded connector plus the job's own classes (every class of
   * {@code jobClass}'s package). The connector's entries are copied as they are.
   */
  public static Path jobJar(Class<?> jobClass, Path target) throws IOException {
    return jobJar(jobClass, target, List.of());
  }

  /**
   * {@link #jobJar(Class, Path)} with classes of other packages the jobs use (test utilities a user
   * would have in a library of theirs), each with its member classes.
   */
  public static Path jobJar(Class<?> jobClass, Path target, List<Class<?>> libraryClasses)
      throws IOException {
    Files.createDirectories(target.getParent());
    Files.copy(connectorJar(), target, StandardCopyOption.REPLACE_EXISTING);
    return addClasses(target, jobClass, libraryClasses);
  }

  /**
   * A job jar without the connector, for a cluster that has it in {@code lib/}: the job's classes
   * and {@code libraryClasses} only.
   */
  public static Path thinJobJar(Class<?> jobClass, Path target, List<Class<?>> libraryClasses)
      throws IOException {
    Files.createDirectories(target.getParent());
    Files.deleteIfExists(target);
    try (FileSystem jar =
        FileSystems.newFileSystem(URI.create("jar:" + target.toUri()), Map.of("create", "true"))) {
      // an empty jar
    }
    return addClasses(target, jobClass, libraryClasses);
  }

  private static Path addClasses(Path target, Class<?> jobClass, List<Class<?>> libraryClasses)
      throws IOException {
    Path classes = Path.of(jobClass.getProtectionDomain().getCodeSource().getLocation().getPath());
    String packageDir = jobClass.getPackageName().replace('.', '/');
    try (FileSystem jar = FileSystems.newFileSystem(URI.create("jar:" + target.toUri()), Map.of());
        Stream<Path> files = Files.list(classes.resolve(packageDir))) {
      List<Path> jobClasses = files.filter(p -> p.toString().endsWith(".class")).toList();
      Path dir = Files.createDirectories(jar.getPath(packageDir));
      for (Path file : jobClasses) {
        Files.copy(file, dir.resolve(file.getFileName().toString()));
      }
      for (Class<?> library : libraryClasses) {
        copyClass(library, jar);
      }
    }
    return target;
  }

  private static void copyClass(Class<?> type, FileSystem jar) throws IOException {
    String entry = type.getName().replace('.', '/') + ".class";
    // from wherever the class path has it: a module's classes directory or its test-jar
    try (InputStream bytes = type.getClassLoader().getResourceAsStream(entry)) {
      if (bytes == null) {
        throw new IllegalStateException("no " + entry + " on the test class path");
      }
      Path target = jar.getPath(entry);
      Files.createDirectories(target.getParent());
      Files.copy(bytes, target, StandardCopyOption.REPLACE_EXISTING);
    }
    for (Class<?> member : type.getDeclaredClasses()) {
      copyClass(member, jar);
    }
  }
}
