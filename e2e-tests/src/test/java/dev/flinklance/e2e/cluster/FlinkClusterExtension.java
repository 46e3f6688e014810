package dev.flinklance.e2e.cluster;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@link FlinkCluster} for a test class: started before its first test, ended after its last
 * (also when tests fail), with every process's log printed when a test fails.
 */
public final class FlinkClusterExtension
    implements BeforeAllCallback, AfterAllCallback, TestWatcher {
  private static final Logger LOG = LoggerFactory.getLogger(FlinkClusterExtension.class);

  private final String name;
  private final Supplier<List<Path>> libJars;
  private final Map<String, String> config;
  private FlinkCluster cluster;

  /**
   * @param libJars jars for the cluster's lib/ besides Flink's own (looked up when the cluster
   *     starts)
   */
  public FlinkClusterExtension(
      String name, Supplier<List<Path>> libJars, Map<String, String> config) {
    this.name = name;
    this.libJars = libJars;
    this.config = config;
  }

  public FlinkCluster cluster() {
    return cluster;
  }

  /** The directory the tests of this class put their tables in. */
  public Path dataDir() {
    return workDir().resolve(name).resolve("data");
  }

  public static Path workDir() {
    return Path.of(System.getProperty("e2e.work.dir", "target/e2e")).toAbsolutePath();
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    Path home = workDir().resolve(name);
    FlinkCluster.deleteRecursively(home);
    Files.createDirectories(home);
    cluster = FlinkCluster.start(name, home, libJars.get(), config);
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Override
  public void testFailed(ExtensionContext context, Throwable cause) {
    if (cluster != null) {
      LOG.error("{} failed; cluster {} logs:{}", context.getDisplayName(), name, cluster.logs());
    }
  }

  @Override
  public void testAborted(ExtensionContext context, Throwable cause) {}

  @Override
  public void testDisabled(ExtensionContext context, Optional<String> reason) {}
}
