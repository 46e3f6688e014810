package dev.flinklance.e2e.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.testcontainers.containers.BindMode;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.MountableFile;

/**
 * A Flink session cluster on Flink's official Docker image ({@code flink:<version>-java17}): a
 * JobManager, TaskManagers that can be killed and replaced, and optionally the SQL gateway. The
 * tests' data directory is mounted at the same path in every container, so the tests read the
 * tables the jobs write with plain Lance.
 */
public final class FlinkContainers implements AutoCloseable {
  private static final String IMAGE =
      "flink:" + System.getProperty("flink.version", "2.2.0") + "-java17";
  private static final int REST_PORT = 8081;
  private static final int GATEWAY_PORT = 8083;

  private final Network network = Network.newNetwork();
  private final Path dataDir;
  private final boolean connectorInLib;
  private final GenericContainer<?> jobManager;
  private final List<GenericContainer<?>> taskManagers = new ArrayList<>();
  private GenericContainer<?> gateway;

  /**
   * @param connectorInLib put the connector jar into every container's {@code lib/} (SQL); without
   *     it, jobs bring the connector in their own jar
   */
  public FlinkContainers(Path dataDir, boolean connectorInLib) throws IOException {
    this.dataDir = dataDir;
    this.connectorInLib = connectorInLib;
    Files.createDirectories(dataDir);
    // the image runs Flink as its own user: let it write the tables
    Files.setPosixFilePermissions(dataDir, PosixFilePermissions.fromString("rwxrwxrwx"));
    jobManager =
        flinkContainer("jobmanager")
            .withNetworkAliases("jobmanager")
            .withExposedPorts(REST_PORT)
            .waitingFor(
                Wait.forHttp("/overview")
                    .forPort(REST_PORT)
                    .withStartupTimeout(Duration.ofMinutes(3)));
  }

  private GenericContainer<?> flinkContainer(String... command) {
    GenericContainer<?> container =
        new GenericContainer<>(IMAGE)
            .withNetwork(network)
            .withCommand(command)
            .withEnv("FLINK_PROPERTIES", properties())
            .withFileSystemBind(dataDir.toString(), dataDir.toString(), BindMode.READ_WRITE);
    if (connectorInLib) {
      container.withCopyFileToContainer(
          MountableFile.forHostPath(ConnectorJars.connectorJar()),
          "/opt/flink/lib/flink-sql-connector-lance.jar");
    }
    return container;
  }

  private static String properties() {
    return String.join(
        "\n",
        "jobmanager.rpc.address: jobmanager",
        "rest.address: jobmanager",
        "taskmanager.numberOfTaskSlots: 2",
        "env.java.opts.all: " + System.getProperty("lance.jvm.opens"),
        "restart-strategy.type: fixed-delay",
        "restart-strategy.fixed-delay.attempts: 10",
        "restart-strategy.fixed-delay.delay: 2 s");
  }

  public FlinkContainers start() {
    jobManager.start();
    startTaskManager();
    return this;
  }

  public void startTaskManager() {
    GenericContainer<?> taskManager = flinkContainer("taskmanager");
    taskManager.start();
    taskManagers.add(taskManager);
  }

  /** Kills the newest TaskManager's container (SIGKILL to its JVM). */
  public void killTaskManager() {
    GenericContainer<?> taskManager = taskManagers.remove(taskManagers.size() - 1);
    taskManager.getDockerClient().killContainerCmd(taskManager.getContainerId()).exec();
    taskManager.stop();
  }

  public FlinkRestClient rest() {
    return new FlinkRestClient(jobManager.getHost(), jobManager.getMappedPort(REST_PORT));
  }

  public SqlGatewayClient startSqlGateway() {
    gateway =
        flinkContainer(
                "/opt/flink/bin/sql-gateway.sh",
                "start-foreground",
                "-Dsql-gateway.endpoint.rest.address=0.0.0.0",
                "-Dsql-gateway.endpoint.rest.port=" + GATEWAY_PORT)
            .withExposedPorts(GATEWAY_PORT)
            .waitingFor(
                Wait.forHttp("/v1/info")
                    .forPort(GATEWAY_PORT)
                    .withStartupTimeout(Duration.ofMinutes(2)));
    gateway.start();
    return new SqlGatewayClient(gateway.getHost(), gateway.getMappedPort(GATEWAY_PORT));
  }

  @Override
  public void close() {
    if (gateway != null) {
      gateway.stop();
    }
    taskManagers.forEach(GenericContainer::stop);
    jobManager.stop();
    network.close();
  }
}
