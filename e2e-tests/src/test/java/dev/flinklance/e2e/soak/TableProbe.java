package dev.flinklance.e2e.soak;

import dev.flinklance.access.TableRef;
import dev.flinklance.commit.VersionChange;
import dev.flinklance.commit.VersionTransaction;
import dev.flinklance.consumer.ConsumerRegistration;
import dev.flinklance.consumer.Consumers;
import dev.flinklance.files.TableFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.fragment.DataFile;

/**
 * What the soak run watches of one local Lance table: its shape now ({@link #sample}), and its
 * history, walked version by version as it is committed ({@link #walk}): which data files each
 * version referenced, when a file stopped being referenced, when the last compaction committed. The
 * history is what tells a file that cleanup should have removed (referenced once, by versions older
 * than the cleanup window) from an orphan no version ever referenced.
 */
final class TableProbe {
  /** One sample of the table's shape. */
  record Shape(
      long version,
      long rows,
      int fragments,
      int versionsKept,
      long manifestBytes,
      int dataFilesOnDisk,
      int dataFilesReferenced) {}

  /** A data file on disk that no kept version references. */
  record Leftover(String file, long bytes, Long unreferencedSinceMillis) {
    boolean everReferenced() {
      return unreferencedSinceMillis != null;
    }
  }

  private static final int READ_ATTEMPTS = 5;

  private final String name;
  private final String uri;
  private final Map<String, String> storageOptions;
  private final Path path;
  private final BufferAllocator allocator;
  private long walkedVersion;
  private Set<String> walkedFiles = Set.of();
  private final Map<String, Long> unreferencedSince = new HashMap<>();
  private final Set<String> everReferenced = new HashSet<>();
  private long lastCompactionMillis = -1;
  private int versionsMissed;

  /**
   * @param uri where the jobs and the plain reader find the table
   * @param path where the table's files are on this machine (for a table in S3TestServer's bucket,
   *     where the server keeps them): the probe reads the table there, so that its reads neither
   *     wait for the server's injected delays nor take the injected failures meant for the jobs
   */
  TableProbe(
      String name,
      String uri,
      Map<String, String> storageOptions,
      Path path,
      BufferAllocator allocator) {
    this.name = name;
    this.uri = uri;
    this.storageOptions = storageOptions;
    this.path = path;
    this.allocator = allocator;
  }

  String name() {
    return name;
  }

  String uri() {
    return uri;
  }

  Map<String, String> storageOptions() {
    return storageOptions;
  }

  /** The table's files on this machine, as a Lance URI that needs no storage options. */
  String localUri() {
    return path.toString();
  }

  boolean exists() {
    Path versions = path.resolve("_versions");
    if (!Files.isDirectory(versions)) {
      return false;
    }
    try (Stream<Path> files = Files.list(versions)) {
      return files.anyMatch(f -> f.getFileName().toString().endsWith(".manifest"));
    } catch (IOException e) {
      return false;
    }
  }

  Shape sample() {
    return retried(this::sampleOnce);
  }

  private Shape sampleOnce() {
    try (Dataset dataset = open()) {
      List<Fragment> fragments = dataset.getFragments();
      Set<String> referenced = files(fragments);
      return new Shape(
          dataset.version(),
          dataset.countRows(),
          fragments.size(),
          dataset.listVersions().size(),
          latestManifestBytes(),
          dataFilesOnDisk().size(),
          referenced.size());
    }
  }

  /** Reads every version committed since the last walk. */
  synchronized void walk() {
    retried(
        () -> {
          walkOnce();
          return null;
        });
  }

  private void walkOnce() {
    try (Dataset dataset = open()) {
      long latest = dataset.version();
      Set<Long> kept =
          dataset.listVersions().stream().map(v -> v.getId()).collect(Collectors.toSet());
      for (long v = walkedVersion + 1; v <= latest; v++) {
        if (!kept.contains(v)) {
          versionsMissed++; // cleaned up before the walk came to it
          continue;
        }
        try (Dataset at = dataset.checkoutVersion(v)) {
          long millis = at.getVersion().getDataTime().toInstant().toEpochMilli();
          Set<String> files = files(at.getFragments());
          for (String file : walkedFiles) {
            if (!files.contains(file)) {
              unreferencedSince.putIfAbsent(file, millis);
            }
          }
          files.forEach(unreferencedSince::remove);
          everReferenced.addAll(files);
          walkedFiles = files;
          Optional<VersionTransaction> transaction = VersionTransaction.of(at);
          if (transaction.isPresent() && transaction.get().kind() == VersionChange.Kind.REWRITE) {
            lastCompactionMillis = millis;
          }
        }
        walkedVersion = v;
      }
    }
  }

  /** Commit time of the newest compaction the walk saw; -1 if none. */
  synchronized long lastCompactionMillis() {
    return lastCompactionMillis;
  }

  /** Versions cleaned up before the walk read them (their files count as never referenced). */
  synchronized int versionsMissed() {
    return versionsMissed;
  }

  /** A version kept, and when it was committed. */
  record Kept(long version, long millis) {}

  /** The versions kept, oldest first. */
  List<Kept> keptVersions() {
    return retried(this::keptVersionsOnce);
  }

  private List<Kept> keptVersionsOnce() {
    try (Dataset dataset = open()) {
      return dataset.listVersions().stream()
          .map(v -> new Kept(v.getId(), v.getDataTime().toInstant().toEpochMilli()))
          .sorted(Comparator.comparingLong(Kept::version))
          .toList();
    }
  }

  /**
   * The oldest version a streaming read registered in the table still needs (cleanup keeps it and
   * every later one), or empty if none is registered.
   */
  OptionalLong oldestRegisteredVersion() {
    try (TableFiles files = TableFiles.of(new TableRef(uri, storageOptions)).orElseThrow()) {
      return new Consumers(files).list().stream().mapToLong(ConsumerRegistration::version).min();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Data files on disk that no kept version references. */
  synchronized List<Leftover> leftovers() {
    return retried(this::leftoversOnce);
  }

  private List<Leftover> leftoversOnce() {
    Set<String> referenced = new HashSet<>();
    try (Dataset dataset = open()) {
      for (var version : dataset.listVersions()) {
        try (Dataset at = dataset.checkoutVersion(version.getId())) {
          referenced.addAll(files(at.getFragments()));
        }
      }
    }
    return dataFilesOnDisk().entrySet().stream()
        .filter(e -> !referenced.contains(e.getKey()))
        .map(
            e ->
                new Leftover(
                    e.getKey(),
                    e.getValue(),
                    everReferenced.contains(e.getKey()) ? unreferencedSince.get(e.getKey()) : null))
        .sorted(Comparator.comparing(Leftover::file))
        .toList();
  }

  /**
   * Runs a read of the table again when it fails, as it does when a cleanup removes a version while
   * Lance lists the versions ({@code listVersions} reads every manifest it lists, and fails with
   * "not found" on one removed meanwhile).
   */
  private static <T> T retried(Supplier<T> read) {
    for (int attempt = 1; ; attempt++) {
      try {
        return read.get();
      } catch (Exception e) { // Lance throws IOException undeclared
        if (attempt == READ_ATTEMPTS) {
          throw new IllegalStateException("reading the table failed " + attempt + " times", e);
        }
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
    }
  }

  private Dataset open() {
    return Dataset.open().allocator(allocator).uri(localUri()).build();
  }

  private static Set<String> files(List<Fragment> fragments) {
    Set<String> files = new HashSet<>();
    for (Fragment fragment : fragments) {
      for (DataFile file : fragment.metadata().getFiles()) {
        files.add(file.getPath());
      }
    }
    return files;
  }

  private Map<String, Long> dataFilesOnDisk() {
    Map<String, Long> files = new TreeMap<>();
    Path data = path.resolve("data");
    if (!Files.isDirectory(data)) {
      return files;
    }
    try (Stream<Path> listed = Files.list(data)) {
      listed.forEach(f -> files.put(f.getFileName().toString(), sizeOf(f)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }

  private long latestManifestBytes() {
    try (Stream<Path> manifests = Files.list(path.resolve("_versions"))) {
      // the newest manifest is the last one written (whatever the naming scheme's order)
      return manifests
          .filter(f -> f.getFileName().toString().endsWith(".manifest"))
          .max(Comparator.comparingLong(TableProbe::modifiedMillis))
          .map(TableProbe::sizeOf)
          .orElse(0L);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static long modifiedMillis(Path file) {
    try {
      return Files.getLastModifiedTime(file).toMillis();
    } catch (IOException e) {
      return 0; // removed by a cleanup while listed
    }
  }

  private static long sizeOf(Path file) {
    try {
      return Files.size(file);
    } catch (IOException e) {
      return 0; // removed by a cleanup while listed
    }
  }
}
