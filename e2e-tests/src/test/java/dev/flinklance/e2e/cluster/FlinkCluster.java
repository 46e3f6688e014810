package dev.flinklance.e2e.cluster;

import dev.flinklance.testing.JvmProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A standalone Flink session cluster made of real processes on 127.0.0.1, started the way
 * flink-dist's scripts start them, without flink-dist: the class path is the build's copy of
 * Flink's jars ({@code flink.cluster.lib}), the JVM flags are flink-dist's Java 17 list ({@code
 * flink.jvm.opts}) plus the memory flags Flink's {@code BashJavaUtils} computes.
 *
 * <p>Every process is ended by its PID when the cluster closes (SIGTERM, then SIGKILL), and each
 * process's output is kept in a log file under the cluster's directory.
 */
public final class FlinkCluster implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(FlinkCluster.class);
  private static final String HOST = "127.0.0.1";
  private static final String BASH_JAVA_UTILS = "org.apache.flink.runtime.util.bash.BashJavaUtils";
  private static final String RESULT_PREFIX = "BASH_JAVA_UTILS_EXEC_RESULT:";
  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
  private static final Duration STOP_GRACE = Duration.ofSeconds(15);
  private static final String TASK_MANAGER_PREFIX = "taskmanager-";

  private final String name;
  private final Path home;
  private final List<Path> classpath;
  private final int restPort;
  private final int gatewayPort;
  private final FlinkRestClient rest;
  private final List<JvmProcess> processes = new ArrayList<>();
  private LaunchParameters taskManagerLaunch;

  /** The config's {@code env.java.opts.taskmanager}, which Flink's scripts add to its command. */
  private List<String> taskManagerJvmOptions = List.of();

  private JvmProcess taskManager;
  private int taskManagersStarted;

  private FlinkCluster(
      String name, Path home, List<Path> classpath, int restPort, int gatewayPort) {
    this.name = name;
    this.home = home;
    this.classpath = classpath;
    this.restPort = restPort;
    this.gatewayPort = gatewayPort;
    this.rest = new FlinkRestClient(HOST, restPort);
  }

  /**
   * @param home an empty directory for the cluster's configuration, logs and temporary files
   * @param libJars jars to put into the cluster's lib/ besides Flink's (the connector, for SQL)
   * @param config settings added to the cluster's config.yaml
   */
  public static FlinkCluster start(
      String name, Path home, List<Path> libJars, Map<String, String> config)
      throws IOException, InterruptedException {
    List<Path> classpath = new ArrayList<>(flinkLib());
    classpath.addAll(libJars);
    FlinkCluster cluster = new FlinkCluster(name, home, classpath, freePort(), freePort());
    try {
      cluster.writeConfiguration(config);
      // as start-cluster.sh does: the TaskManager starts at once and registers when it can
      JvmProcess jobManager = cluster.launchJobManager();
      cluster.launchTaskManager();
      cluster.awaitJobManager(jobManager);
      cluster.awaitTaskManager();
      return cluster;
    } catch (IOException | InterruptedException | RuntimeException e) {
      LOG.error("cluster {} did not start:\n{}", name, cluster.logs());
      cluster.close();
      throw e;
    }
  }

  public FlinkRestClient rest() {
    return rest;
  }

  public String restAddress() {
    return HOST + ":" + restPort;
  }

  public Path home() {
    return home;
  }

  /** The running TaskManager's process. */
  public JvmProcess taskManager() {
    return taskManager;
  }

  /** The {@code java.io.tmpdir} of the running TaskManager. */
  public Path taskManagerTmpDir() {
    return tmpDir(taskManager.name());
  }

  /** The TaskManager processes started so far that are still running, oldest first. */
  public List<JvmProcess> runningTaskManagers() {
    return processes.stream()
        .filter(p -> p.name().startsWith(TASK_MANAGER_PREFIX) && p.isAlive())
        .toList();
  }

  /** {@code kill -9} of the TaskManager: no shutdown, no cleanup. */
  public void killTaskManager() throws InterruptedException {
    killTaskManager(taskManager);
  }

  /** {@code kill -9} of one of the TaskManagers. */
  public void killTaskManager(JvmProcess process) throws InterruptedException {
    LOG.info("kill -9 {} (pid {})", process.name(), process.pid());
    process.kill();
  }

  /** Starts a TaskManager and waits until it has registered with the JobManager. */
  public void startTaskManager() throws IOException, InterruptedException {
    launchTaskManager();
    awaitTaskManager();
  }

  private void launchTaskManager() throws IOException, InterruptedException {
    if (taskManagerLaunch == null) {
      LaunchParameters resources = resourceParameters("GET_TM_RESOURCE_PARAMS");
      List<String> jvmOptions = new ArrayList<>(resources.jvmOptions());
      jvmOptions.addAll(taskManagerJvmOptions);
      taskManagerLaunch = new LaunchParameters(jvmOptions, resources.dynamicProperties());
    }
    String processName = TASK_MANAGER_PREFIX + ++taskManagersStarted;
    taskManager =
        launch(
            processName,
            "org.apache.flink.runtime.taskexecutor.TaskManagerRunner",
            taskManagerLaunch,
            // its id in the REST API, so that its registration is recognised
            List.of("-D", "taskmanager.resource-id=" + processName),
            taskManagerEnvironment());
  }

  /**
   * What {@code -Dflink.taskmanager.env=NAME=value,...} adds to each TaskManager's environment: the
   * soak compares glibc's malloc settings ({@code MALLOC_ARENA_MAX}) and allocators ({@code
   * LD_PRELOAD}) with it.
   */
  private static Map<String, String> taskManagerEnvironment() {
    Map<String, String> environment = new LinkedHashMap<>();
    for (String entry : split(System.getProperty("flink.taskmanager.env", "").replace(',', ' '))) {
      int equals = entry.indexOf('=');
      if (equals <= 0) {
        throw new IllegalArgumentException(
            "flink.taskmanager.env: expected NAME=value, got '" + entry + "'");
      }
      environment.put(entry.substring(0, equals), entry.substring(equals + 1));
    }
    return environment;
  }

  private void awaitTaskManager() throws InterruptedException {
    JvmProcess launched = taskManager;
    Await.until(
        launched.name() + " to register with the JobManager",
        START_TIMEOUT,
        () -> exited(launched) || rest.taskManagers().contains(launched.name()),
        () -> rest.taskManagers().toString());
    requireAlive(launched);
  }

  /** Starts Flink's SQL gateway (REST endpoint) against this cluster. */
  public SqlGatewayClient startSqlGateway() throws IOException, InterruptedException {
    JvmProcess gateway =
        launch(
            "sql-gateway",
            "org.apache.flink.table.gateway.SqlGateway",
            new LaunchParameters(List.of("-Xmx512m"), List.of()),
            List.of(),
            Map.of());
    SqlGatewayClient client = new SqlGatewayClient(HOST, gatewayPort);
    Await.until(
        "the SQL gateway to answer",
        START_TIMEOUT,
        () -> exited(gateway) || client.isUp(),
        () -> "");
    requireAlive(gateway);
    return client;
  }

  /** The tail of every process's output, for failure reports. */
  public String logs() {
    StringBuilder out = new StringBuilder();
    for (JvmProcess process : processes) {
      out.append(
          String.format(
              "%n===== %s (pid %d, %s) %s%n%s%n",
              process.name(),
              process.pid(),
              process.isAlive() ? "running" : "ended",
              process.log(),
              JvmProcess.tail(process.log(), 150)));
    }
    return out.toString();
  }

  /** Ends every process by its PID, and deletes their temporary directories. */
  @Override
  public void close() throws InterruptedException {
    List<JvmProcess> reversed = new ArrayList<>(processes);
    java.util.Collections.reverse(reversed);
    for (JvmProcess process : reversed) {
      process.stop(STOP_GRACE);
    }
    // the native library each class loader unpacks is ~180 MB, and kill -9 leaves it behind
    deleteRecursively(home.resolve("tmp"));
  }

  private void writeConfiguration(Map<String, String> extra) throws IOException {
    Map<String, String> config = new LinkedHashMap<>();
    config.put("jobmanager.rpc.address", HOST);
    config.put("jobmanager.rpc.port", Integer.toString(freePort()));
    config.put("jobmanager.bind-host", HOST);
    config.put("taskmanager.host", HOST);
    config.put("taskmanager.bind-host", HOST);
    config.put("rest.address", HOST);
    config.put("rest.bind-address", HOST);
    config.put("rest.port", Integer.toString(restPort));
    config.put("sql-gateway.endpoint.rest.address", HOST);
    config.put("sql-gateway.endpoint.rest.bind-address", HOST);
    config.put("sql-gateway.endpoint.rest.port", Integer.toString(gatewayPort));
    config.put("jobmanager.memory.process.size", "768m");
    config.put("taskmanager.memory.process.size", "1344m");
    // batch SQL sorts (ORDER BY, as in docker/sql/walkthrough.sql) fail without managed memory
    config.put("taskmanager.memory.managed.size", "64m");
    // Arrow's buffers are direct memory: the sink's writers need room there
    config.put("taskmanager.memory.task.off-heap.size", "256m");
    config.put("taskmanager.numberOfTaskSlots", "2");
    config.put("parallelism.default", "2");
    // a killed TaskManager is noticed within seconds, not the default 50 s
    config.put("heartbeat.interval", "1000");
    config.put("heartbeat.timeout", "5000");
    config.put("restart-strategy.type", "fixed-delay");
    config.put("restart-strategy.fixed-delay.attempts", "100");
    config.put("restart-strategy.fixed-delay.delay", "1 s");
    config.put("web.upload.dir", home.resolve("upload").toString());
    config.put("blob.storage.directory", home.resolve("tmp/blobs").toString());
    config.put("io.tmp.dirs", home.resolve("tmp/io").toString());
    config.putAll(extra);
    taskManagerJvmOptions = split(config.get("env.java.opts.taskmanager"));
    Path conf = Files.createDirectories(home.resolve("conf"));
    Files.createDirectories(home.resolve("upload"));
    Files.writeString(
        conf.resolve("config.yaml"),
        config.entrySet().stream()
            .map(e -> e.getKey() + ": " + e.getValue())
            .collect(Collectors.joining("\n", "", "\n")),
        StandardCharsets.UTF_8);
    try (var log4j = FlinkCluster.class.getResourceAsStream("/flink-cluster-log4j.properties")) {
      Files.copy(log4j, conf.resolve("log4j.properties"));
    }
  }

  private JvmProcess launchJobManager() throws IOException, InterruptedException {
    return launch(
        "jobmanager",
        "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint",
        resourceParameters("GET_JM_RESOURCE_PARAMS"),
        List.of("--executionMode", "cluster"),
        Map.of());
  }

  private void awaitJobManager(JvmProcess jobManager) throws InterruptedException {
    Await.until(
        "the JobManager's REST endpoint on " + restAddress(),
        START_TIMEOUT,
        () -> exited(jobManager) || rest.isUp(),
        () -> "");
    requireAlive(jobManager);
  }

  private JvmProcess launch(
      String processName,
      String mainClass,
      LaunchParameters parameters,
      List<String> args,
      Map<String, String> environment)
      throws IOException {
    Path tmp = Files.createDirectories(tmpDir(processName));
    List<String> arguments =
        new ArrayList<>(List.of("--configDir", home.resolve("conf").toString()));
    arguments.addAll(args);
    arguments.addAll(parameters.dynamicProperties());
    JvmProcess.Builder builder = JvmProcess.builder(processName, mainClass);
    environment.forEach(builder::environment);
    JvmProcess process =
        builder
            .classpath(classpath)
            .jvmOptions(split(System.getProperty("flink.jvm.opts")))
            .jvmOptions(parameters.jvmOptions())
            .jvmOptions(
                "-Dlog4j.configurationFile=file:" + home.resolve("conf/log4j.properties"),
                "-Dlog.file=" + home.resolve("log/" + processName + ".log"),
                "-Djava.io.tmpdir=" + tmp)
            .args(arguments)
            .log(home.resolve("log/" + processName + ".out"))
            .workingDirectory(home)
            .start();
    processes.add(process);
    LOG.info("{}: started {} (pid {})", name, processName, process.pid());
    return process;
  }

  /** JVM memory flags and dynamic properties, computed by Flink the way its scripts do. */
  private LaunchParameters resourceParameters(String command)
      throws IOException, InterruptedException {
    Path log = home.resolve("log/bash-java-utils-" + command + ".out");
    try (JvmProcess utils =
        JvmProcess.builder("bash-java-utils", BASH_JAVA_UTILS)
            .classpath(classpath)
            .jvmOptions("-Xmx128m")
            .args(command, "--configDir", home.resolve("conf").toString())
            .log(log)
            .start()) {
      int exit = utils.waitFor(Duration.ofMinutes(1));
      List<String> results =
          utils.output().lines().filter(l -> l.startsWith(RESULT_PREFIX)).toList();
      if (exit != 0 || results.size() != 2) {
        throw new IllegalStateException(
            command + " failed (exit " + exit + "):\n" + utils.output());
      }
      return new LaunchParameters(
          split(results.get(0).substring(RESULT_PREFIX.length())),
          split(results.get(1).substring(RESULT_PREFIX.length())));
    }
  }

  private record LaunchParameters(List<String> jvmOptions, List<String> dynamicProperties) {}

  private Path tmpDir(String processName) {
    return home.resolve("tmp").resolve(processName);
  }

  private static boolean exited(JvmProcess process) {
    return !process.isAlive();
  }

  private static void requireAlive(JvmProcess process) {
    if (!process.isAlive()) {
      throw new IllegalStateException(
          process.name() + " exited at start:\n" + JvmProcess.tail(process.log(), 80));
    }
  }

  /** Flink's jars as the build copied them (a flink-dist lib/ without the connector). */
  private static List<Path> flinkLib() throws IOException {
    Path lib =
        Path.of(
            System.getProperty(
                "flink.cluster.lib",
                "target/flink-cluster-" + System.getProperty("flink.version") + "/lib"));
    try (Stream<Path> jars = Files.list(lib)) {
      List<Path> list = jars.filter(p -> p.toString().endsWith(".jar")).sorted().toList();
      if (list.isEmpty()) {
        throw new IllegalStateException(
            "no Flink jars in " + lib + ": run the build through Maven");
      }
      return list;
    }
  }

  private static List<String> split(String options) {
    return options == null || options.isBlank()
        ? List.of()
        : Arrays.asList(options.trim().split("\\s+"));
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
      return socket.getLocalPort();
    }
  }

  static void deleteRecursively(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
