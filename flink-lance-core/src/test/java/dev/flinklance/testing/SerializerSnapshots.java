package dev.flinklance.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The stored bytes of every format a module keeps in checkpoints, savepoints or on the wire, and
 * the proof that this build reads them. A module's test extends this class and lists its {@link
 * Snapshot}s: one fixture value per file {@code src/test/resources/serializer-snapshots/<name>
 * -v<format>.bin}. It then checks that
 *
 * <ul>
 *   <li>the stored bytes of every listed format read to the fixture, field for field (also fields
 *       of Lance classes without {@code equals});
 *   <li>the current format writes exactly the stored bytes, twice alike, so a layout change without
 *       a new format fails;
 *   <li>every format from 1 to one past the current that has no snapshot it reads is refused with
 *       {@link dev.flinklance.state.FormatSerializer}'s message (a serializer that reads an older
 *       format needs that format's bytes here), and so are the stored bytes of refused formats;
 *   <li>every {@link SimpleVersionedSerializer} in the module's main classes has a snapshot, so a
 *       new format cannot escape.
 * </ul>
 *
 * <p>The bytes of a new fixture or a new format are written once, from the fixture, by running the
 * test with {@code -Dserializer.snapshots.write=true}: only missing files of current formats are
 * written; a stored file is never replaced (one that no longer matches fails).
 *
 * <p>To change a format: keep the old files, bump the serializer's format, and either read the old
 * format ({@code readsOlder}/{@code readOlder}), turning its entries into {@link Snapshot#older}
 * (their fixtures are what the old bytes read to now), or refuse it, turning them into {@link
 * Snapshot#refused} (the refusal of the stored bytes is then checked). Then add the new format's
 * fixtures as {@link Snapshot#current} and write their files with the property above. Every file in
 * the directory must be listed.
 */
public abstract class SerializerSnapshots {
  public static final String WRITE_PROPERTY = "serializer.snapshots.write";
  private static final String RESOURCES = "src/test/resources/serializer-snapshots";

  /**
   * One fixture in one format.
   *
   * @param name what the fixture is, in the file name ({@code lance-split-added})
   * @param version the format of the stored bytes
   * @param value what those bytes read to; null if the format is refused
   * @param read whether the serializer reads the format (or refuses it)
   */
  public record Snapshot<T>(
      String name, SimpleVersionedSerializer<T> serializer, int version, T value, boolean read) {

    /** A fixture in the serializer's current format. */
    public static <T> Snapshot<T> current(
        String name, SimpleVersionedSerializer<T> serializer, T value) {
      return new Snapshot<>(name, serializer, serializer.getVersion(), value, true);
    }

    /** A fixture in an older format that the serializer still reads. */
    public static <T> Snapshot<T> older(
        String name, SimpleVersionedSerializer<T> serializer, int version, T value) {
      return new Snapshot<>(name, serializer, version, value, true);
    }

    /** The stored bytes of an older format that the serializer refuses. */
    public static <T> Snapshot<T> refused(
        String name, SimpleVersionedSerializer<T> serializer, int version) {
      return new Snapshot<>(name, serializer, version, null, false);
    }

    public String file() {
      return name + "-v" + version + ".bin";
    }

    boolean isCurrent() {
      return version == serializer.getVersion();
    }

    @Override
    public String toString() {
      return file();
    }
  }

  /** Every fixture of the module, current and older formats. */
  protected abstract List<Snapshot<?>> snapshots();

  /** Any class of the module's main code: the guard scans the classes directory it is in. */
  protected abstract Class<?> mainClass();

  @TestFactory
  Stream<DynamicTest> storedBytesReadToTheFixture() {
    return snapshots().stream()
        .filter(Snapshot::read)
        .map(snapshot -> DynamicTest.dynamicTest(snapshot.file(), () -> assertReads(snapshot)));
  }

  @TestFactory
  Stream<DynamicTest> storedBytesOfRefusedFormatsAreRefused() {
    return snapshots().stream()
        .filter(snapshot -> !snapshot.read())
        .map(
            snapshot ->
                DynamicTest.dynamicTest(
                    snapshot.file(),
                    () ->
                        assertRefuses(
                            snapshot.serializer(), snapshot.version(), stored(snapshot))));
  }

  @TestFactory
  Stream<DynamicTest> currentFormatsWriteTheStoredBytes() {
    return snapshots().stream()
        .filter(Snapshot::isCurrent)
        .map(snapshot -> DynamicTest.dynamicTest(snapshot.file(), () -> assertWrites(snapshot)));
  }

  @TestFactory
  Stream<DynamicTest> formatsWithoutSnapshotAreRefused() {
    Map<Class<?>, SimpleVersionedSerializer<?>> serializers = new LinkedHashMap<>();
    snapshots().forEach(s -> serializers.putIfAbsent(s.serializer().getClass(), s.serializer()));
    return serializers.values().stream()
        .flatMap(
            serializer ->
                IntStream.rangeClosed(1, serializer.getVersion() + 1)
                    .filter(version -> !hasSnapshot(serializer, version))
                    .mapToObj(
                        version ->
                            DynamicTest.dynamicTest(
                                serializer.getClass().getSimpleName() + " format " + version,
                                () -> assertRefuses(serializer, version, new byte[64]))));
  }

  @Test
  void everyStoredFileHasASnapshot() throws IOException {
    Set<String> listed =
        snapshots().stream().map(Snapshot::file).collect(Collectors.toCollection(TreeSet::new));
    Set<String> stored = new TreeSet<>();
    if (Files.isDirectory(resources())) {
      try (Stream<Path> files = Files.list(resources())) {
        files.map(file -> file.getFileName().toString()).forEach(stored::add);
      }
    }
    assertThat(listed).as("snapshots listed by %s", getClass().getSimpleName()).containsAll(stored);
  }

  @Test
  void everyVersionedSerializerHasASnapshot() {
    Set<String> covered =
        snapshots().stream()
            .map(s -> s.serializer().getClass().getName())
            .collect(Collectors.toCollection(TreeSet::new));
    assertThat(versionedSerializersIn(mainClass()))
        .as("serializers of %s without a snapshot in %s", mainClass().getPackageName(), RESOURCES)
        .containsExactlyElementsOf(covered);
  }

  private boolean hasSnapshot(SimpleVersionedSerializer<?> serializer, int version) {
    return snapshots().stream()
        .anyMatch(
            s ->
                s.read()
                    && s.serializer().getClass() == serializer.getClass()
                    && s.version() == version);
  }

  private <T> void assertReads(Snapshot<T> snapshot) throws IOException {
    T read = snapshot.serializer().deserialize(snapshot.version(), stored(snapshot));
    assertThat(read)
        .as(snapshot.file())
        .usingRecursiveComparison()
        .withStrictTypeChecking()
        .isEqualTo(snapshot.value());
  }

  private <T> void assertWrites(Snapshot<T> snapshot) throws IOException {
    byte[] stored = stored(snapshot);
    SimpleVersionedSerializer<T> serializer = snapshot.serializer();
    assertThat(serializer.serialize(snapshot.value()))
        .as("%s: the layout changed without a new format", snapshot.file())
        .isEqualTo(stored)
        .isEqualTo(serializer.serialize(snapshot.value()));
    assertThat(serializer.serialize(serializer.deserialize(snapshot.version(), stored)))
        .as("%s written again after reading", snapshot.file())
        .isEqualTo(stored);
  }

  private static void assertRefuses(
      SimpleVersionedSerializer<?> serializer, int version, byte[] bytes) {
    assertThatThrownBy(() -> serializer.deserialize(version, bytes))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith("The ")
        .hasMessageContaining(
            String.format(
                " in this checkpoint or savepoint have format %d; this connector reads format %d.",
                version, serializer.getVersion()))
        .hasMessageContaining("stop-with-savepoint");
  }

  private byte[] stored(Snapshot<?> snapshot) throws IOException {
    Path file = resources().resolve(snapshot.file());
    if (Boolean.getBoolean(WRITE_PROPERTY)
        && snapshot.read()
        && snapshot.isCurrent()
        && !Files.exists(file)) {
      writeSnapshot(snapshot, file);
    }
    if (!Files.exists(file)) {
      fail(
          "No stored bytes %s; write them from the fixture with -D%s=true (current formats only)",
          file, WRITE_PROPERTY);
    }
    return Files.readAllBytes(file);
  }

  private static <T> void writeSnapshot(Snapshot<T> snapshot, Path file) throws IOException {
    Files.createDirectories(file.getParent());
    Files.write(file, snapshot.serializer().serialize(snapshot.value()));
  }

  /** The module's source directory of snapshots (the test classes are in its target/). */
  private Path resources() {
    return moduleDir(getClass()).resolve(RESOURCES);
  }

  private static Path classesDir(Class<?> type) {
    try {
      Path dir = Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
      assertThat(dir).as("classes of %s", type).isDirectory();
      return dir;
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Path moduleDir(Class<?> type) {
    return classesDir(type).getParent().getParent();
  }

  /** Concrete {@link SimpleVersionedSerializer}s among the classes next to {@code mainClass}. */
  static Set<String> versionedSerializersIn(Class<?> mainClass) {
    Path root = classesDir(mainClass);
    try (Stream<Path> files = Files.walk(root)) {
      return files
          .map(root::relativize)
          .map(Path::toString)
          .filter(name -> name.endsWith(".class") && !name.equals("module-info.class"))
          .map(name -> name.substring(0, name.length() - ".class".length()).replace('/', '.'))
          .map(name -> load(name, mainClass.getClassLoader()))
          .filter(SerializerSnapshots::isConcreteVersionedSerializer)
          .map(Class::getName)
          .collect(Collectors.toCollection(TreeSet::new));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static boolean isConcreteVersionedSerializer(Class<?> type) {
    return SimpleVersionedSerializer.class.isAssignableFrom(type)
        && !type.isInterface()
        && !Modifier.isAbstract(type.getModifiers());
  }

  private static Class<?> load(String name, ClassLoader loader) {
    try {
      return Class.forName(name, false, loader);
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException("Cannot load " + name, e);
    }
  }
}
