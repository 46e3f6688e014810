package dev.flinklance.connector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.net.httpserver.HttpServer;
import dev.flinklance.testing.JvmProcess;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Checks the jars this module builds: what is inside (and what must not be), the merged service
 * files, and that Lance works from each jar alone in a fresh JVM.
 */
class ShadedJarITCase {
  private static final long MAX_PLATFORM_JAR_BYTES = 100L * 1024 * 1024;
  private static final List<String> NATIVE_SUFFIXES = List.of(".so", ".dylib", ".dll", ".jnilib");

  private static Path allPlatformsJar;
  private static Path platformJar;
  private static String platform;
  private static String arrowLibrary;

  @BeforeAll
  static void locateJars() {
    allPlatformsJar = Path.of(System.getProperty("connector.jar"));
    platformJar = Path.of(System.getProperty("connector.platform.jar"));
    platform = System.getProperty("connector.platform");
    arrowLibrary = System.getProperty("connector.arrow.library");
    assertThat(allPlatformsJar).isRegularFile();
    assertThat(platformJar).isRegularFile();
    for (Path jar : List.of(platformJar, allPlatformsJar)) {
      System.out.printf("%s: %.1f MiB%n", jar.getFileName(), jar.toFile().length() / 1048576.0);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"all", "platform"})
  void containsNeitherFlinkNorLogging(String which) {
    assertThat(entries(jar(which)))
        .noneMatch(name -> name.startsWith("org/apache/flink/"))
        .noneMatch(name -> name.startsWith("org/slf4j/"))
        .noneMatch(name -> name.startsWith("org/apache/logging/"))
        .noneMatch(name -> name.startsWith("org/apache/log4j/"))
        .noneMatch(name -> name.matches("META-INF/[^/]+\\.(SF|DSA|RSA)"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"all", "platform"})
  void keepsArrowLanceAndJacksonUnderTheirOwnNames(String which) {
    // the native library finds these classes by name
    assertThat(entries(jar(which)))
        .contains(
            "org/lance/Dataset.class",
            "org/apache/arrow/c/Data.class",
            "org/apache/arrow/vector/types/pojo/ArrowType.class",
            "com/fasterxml/jackson/databind/ObjectMapper.class",
            "dev/flinklance/sink/LanceSink.class",
            "dev/flinklance/compactor/LanceCompactionJob.class",
            "dev/flinklance/table/LanceDynamicTableFactory.class",
            "dev/flinklance/table/catalog/LanceCatalog.class")
        .noneMatch(name -> name.startsWith("com/google/common/"))
        .noneMatch(name -> name.startsWith("org/apache/commons/"))
        .anyMatch(name -> name.startsWith("dev/flinklance/shaded/com/google/common/"));
  }

  @Test
  void platformJarCarriesOnlyItsPlatformsNativeLibraries() throws IOException {
    assertThat(nativeLibraries(platformJar))
        .containsExactlyInAnyOrder(
            "nativelib/"
                + platform
                + "/liblance_jni."
                + (platform.startsWith("darwin") ? "dylib" : "so"),
            arrowLibrary);
    assertThat(Files.size(platformJar)).isLessThan(MAX_PLATFORM_JAR_BYTES);
  }

  @Test
  void allPlatformsJarCarriesEveryLanceLibrary() {
    Set<String> lanceLibraries = new LinkedHashSet<>(nativeLibraries(dependencyJar("lance-core")));
    assertThat(lanceLibraries).hasSizeGreaterThanOrEqualTo(3);
    assertThat(nativeLibraries(allPlatformsJar))
        .containsAll(lanceLibraries)
        .containsAll(nativeLibraries(dependencyJar("arrow-c-data")))
        .noneMatch(name -> name.startsWith("arrow_dataset_jni/"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"all", "platform"})
  void nativeLibrariesAreTheDependenciesBytes(String which) throws IOException {
    Map<String, ZipEntry> originals = new TreeMap<>();
    for (String artifact : List.of("lance-core", "arrow-c-data")) {
      try (ZipFile zip = new ZipFile(dependencyJar(artifact).toFile())) {
        zip.stream().forEach(entry -> originals.put(entry.getName(), entry));
      }
    }
    try (ZipFile zip = new ZipFile(jar(which).toFile())) {
      for (String name : nativeLibraries(jar(which))) {
        ZipEntry copy = zip.getEntry(name);
        ZipEntry original = originals.get(name);
        assertThat(copy.getCrc()).as(name).isEqualTo(original.getCrc());
        assertThat(copy.getSize()).as(name).isEqualTo(original.getSize());
        assertThat(copy.getCompressedSize()).as(name).isEqualTo(original.getCompressedSize());
      }
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"all", "platform"})
  void mergesTheServiceFilesOfEveryBundledJar(String which) throws IOException {
    Map<String, Set<String>> shaded = serviceFiles(jar(which));
    Set<String> entries = new LinkedHashSet<>(entries(jar(which)));
    List<Path> bundled = classpath().filter(p -> isBundled(p, entries)).toList();
    assertThat(bundled)
        .as("bundled class path entries")
        .anyMatch(p -> p.toString().contains("flink-lance-sink"))
        .anyMatch(p -> p.toString().contains("flink-lance-source"))
        .anyMatch(p -> p.toString().contains("flink-lance-compactor"))
        .anyMatch(p -> p.toString().contains("flink-lance-table"))
        .anyMatch(p -> p.getFileName().toString().startsWith("s3-"))
        .anyMatch(p -> p.getFileName().toString().startsWith("jackson-databind-"));
    for (Path source : bundled) {
      serviceFiles(source)
          .forEach(
              (file, implementations) ->
                  assertThat(shaded.get(file))
                      .as("%s of %s", file, source.getFileName())
                      .containsAll(implementations));
    }
    // every implementation a service file names is in the jar (relocated ones too)
    shaded.forEach(
        (file, implementations) ->
            implementations.forEach(
                impl ->
                    assertThat(entries)
                        .as("%s lists %s", file, impl)
                        .contains(impl.replace('.', '/') + ".class")));
  }

  /**
   * The services Flink (SQL 'connector' = 'lance', CREATE CATALOG ... 'type' = 'lance') and the
   * sink (compaction in the sink's job) find the connector by.
   */
  @ParameterizedTest
  @CsvSource({
    "org.apache.flink.table.factories.Factory, dev.flinklance.table.LanceDynamicTableFactory",
    "org.apache.flink.table.factories.Factory, dev.flinklance.table.catalog.LanceCatalogFactory",
    "dev.flinklance.maintenance.TableMaintenance, dev.flinklance.compactor.CompactionMaintenance"
  })
  void registersTheConnectorServices(String service, String implementation) throws IOException {
    for (String which : List.of("all", "platform")) {
      assertThat(serviceFiles(jar(which)).get("META-INF/services/" + service))
          .as("%s in the %s jar", service, which)
          .contains(implementation);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"all", "platform"})
  void writesAndReadsALanceTableInAFreshJvm(String which, @TempDir Path dir)
      throws IOException, InterruptedException {
    assumeTrue(
        which.equals("all") || platform.equals(machinePlatform()),
        "the platform jar is for " + platform + ", this machine is " + machinePlatform());
    try (JvmProcess smoke =
        JvmProcess.builder("smoke-" + which, ShadedJarSmoke.class.getName())
            // Flink clusters provide slf4j, which Arrow logs to
            .classpath(jar(which), dependencyJar("slf4j-api"), testClasses())
            .jvmOptions(JvmProcess.lanceJvmOpens())
            // the loader unpacks the native library there
            .jvmOptions(
                "-Xmx256m", "-Djava.io.tmpdir=" + Files.createDirectories(dir.resolve("tmp")))
            .args(dir.resolve("smoke.lance").toString())
            .log(dir.resolve("smoke.log"))
            .start()) {
      int exit = smoke.waitFor(Duration.ofMinutes(2));
      assertThat(exit).as(smoke.output()).isZero();
      assertThat(smoke.output())
          .contains("version=2 rows=1000 idSum=499500 named=500 vecSum=1500.0");
    }
  }

  /**
   * The AWS SDK inside the jar (the compactor's side files on s3://) finds its HTTP client,
   * endpoint rules and XML protocol: a PUT and a bucket listing against a local endpoint that
   * answers like S3.
   */
  @ParameterizedTest
  @ValueSource(strings = {"all", "platform"})
  void s3ClientWorksFromTheJarAlone(String which, @TempDir Path dir) throws Exception {
    List<String> requests = new CopyOnWriteArrayList<>();
    HttpServer s3 =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    s3.createContext(
        "/",
        exchange -> {
          requests.add(exchange.getRequestMethod() + " " + exchange.getRequestURI());
          exchange.getRequestBody().readAllBytes();
          byte[] body =
              exchange.getRequestMethod().equals("GET")
                  ? ("<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
                          + "<Name>lake</Name><Prefix>t/</Prefix><KeyCount>1</KeyCount>"
                          + "<IsTruncated>false</IsTruncated><Contents><Key>t/side-1.bin</Key>"
                          + "<Size>7</Size></Contents></ListBucketResult>")
                      .getBytes(StandardCharsets.UTF_8)
                  : new byte[0];
          exchange.getResponseHeaders().add("ETag", "\"e\"");
          exchange.sendResponseHeaders(200, body.length == 0 ? -1 : body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    s3.start();
    try (JvmProcess smoke =
        JvmProcess.builder("s3-smoke-" + which, ShadedS3Smoke.class.getName())
            .classpath(jar(which), dependencyJar("slf4j-api"), testClasses())
            .jvmOptions("-Xmx128m")
            .args("http://127.0.0.1:" + s3.getAddress().getPort())
            .log(dir.resolve("s3-smoke.log"))
            .start()) {
      int exit = smoke.waitFor(Duration.ofMinutes(1));
      assertThat(exit).as(smoke.output()).isZero();
      assertThat(smoke.output()).contains("keys=[t/side-1.bin]");
    } finally {
      s3.stop(0);
    }
    assertThat(requests)
        .containsExactly("PUT /lake/t/side-1.bin", "GET /lake?list-type=2&prefix=t%2F");
  }

  private static Path testClasses() {
    return Path.of(
        ShadedJarSmoke.class.getProtectionDomain().getCodeSource().getLocation().getPath());
  }

  /** This machine's directory name under lance-core's nativelib/ (JNA's naming). */
  private static String machinePlatform() {
    String os = System.getProperty("os.name").startsWith("Mac") ? "darwin" : "linux";
    String arch = System.getProperty("os.arch");
    return os + "-" + (arch.equals("amd64") || arch.equals("x86_64") ? "x86-64" : arch);
  }

  private static Path jar(String which) {
    return which.equals("all") ? allPlatformsJar : platformJar;
  }

  private static List<String> entries(Path jar) {
    try (ZipFile zip = new ZipFile(jar.toFile())) {
      return zip.stream().map(ZipEntry::getName).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<String> nativeLibraries(Path jar) {
    return entries(jar).stream()
        .filter(name -> NATIVE_SUFFIXES.stream().anyMatch(name::endsWith))
        .toList();
  }

  /** A jar of the test class path, by artifact id (lance-core comes with flink-lance-sink). */
  private static Path dependencyJar(String artifactId) {
    return classpath()
        .filter(p -> p.getFileName().toString().startsWith(artifactId + "-"))
        .filter(p -> p.toString().endsWith(".jar"))
        .findFirst()
        .orElseThrow(() -> new IllegalStateException(artifactId + " is not on the class path"));
  }

  /**
   * Whether the shaded jar carries a class path entry: one of the connector's modules, or a jar
   * whose first class is in the shaded jar under its own name.
   */
  private static boolean isBundled(Path entry, Set<String> shadedEntries) {
    if (!Files.exists(entry)) {
      return false;
    }
    if (Files.isDirectory(entry)) {
      return entry.toString().contains("flink-lance-")
          && !entry.toString().contains("test-classes");
    }
    if (entry.getFileName().toString().startsWith("flink-lance-")) {
      return !entry.getFileName().toString().contains("-tests");
    }
    return entries(entry).stream()
        .filter(name -> name.endsWith(".class") && !name.contains("module-info"))
        .findFirst()
        .map(shadedEntries::contains)
        .orElse(false);
  }

  private static Stream<Path> classpath() {
    return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
        .map(Path::of);
  }

  /** META-INF/services files of a jar or class directory: file name to implementations. */
  private static Map<String, Set<String>> serviceFiles(Path jarOrDirectory) throws IOException {
    Map<String, Set<String>> services = new TreeMap<>();
    if (Files.isDirectory(jarOrDirectory)) {
      Path dir = jarOrDirectory.resolve("META-INF/services");
      if (Files.isDirectory(dir)) {
        try (Stream<Path> files = Files.list(dir)) {
          for (Path file : files.toList()) {
            services.put(
                "META-INF/services/" + file.getFileName(),
                implementations(Files.readString(file, StandardCharsets.UTF_8)));
          }
        }
      }
      return services;
    }
    try (ZipFile zip = new ZipFile(jarOrDirectory.toFile())) {
      for (ZipEntry entry : zip.stream().toList()) {
        if (entry.getName().startsWith("META-INF/services/") && !entry.isDirectory()) {
          try (InputStream in = zip.getInputStream(entry)) {
            services.put(
                entry.getName(),
                implementations(new String(in.readAllBytes(), StandardCharsets.UTF_8)));
          }
        }
      }
    }
    return services;
  }

  private static Set<String> implementations(String serviceFile) {
    Set<String> names = new LinkedHashSet<>();
    for (String line : serviceFile.split("\n")) {
      String name = line.replaceAll("#.*", "").trim();
      if (!name.isEmpty()) {
        names.add(name);
      }
    }
    return names;
  }
}
