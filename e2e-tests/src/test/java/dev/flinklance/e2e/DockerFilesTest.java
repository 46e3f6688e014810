package dev.flinklance.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * What can be checked of docker/ without a Docker engine: the compose file parses, and the paths,
 * versions and options in docker/ are the build's (the SQL script itself runs on the e2e cluster in
 * {@code SqlGatewayITCase}). docker/ runs the default build's Flink and jar: the build for Flink
 * 1.20 ({@code -Pflink-1.20}) has none of its own.
 */
class DockerFilesTest {
  private static final List<String> FLINK_SERVICES =
      List.of("jobmanager", "taskmanager", "sql-client");

  private static Path root;
  private static Path docker;
  private static Map<String, Object> services;
  private static String dockerfile;

  @BeforeAll
  @SuppressWarnings("unchecked")
  static void load() throws IOException {
    assumeFalse(
        System.getProperty("flink.version").startsWith("1."),
        "docker/ is the default (Flink 2.x) build's");
    root = Path.of(System.getProperty("repo.root", "..")).toAbsolutePath().normalize();
    docker = root.resolve("docker");
    Object compose =
        new Load(LoadSettings.builder().build())
            .loadFromString(Files.readString(docker.resolve("docker-compose.yml")));
    services = (Map<String, Object>) ((Map<String, Object>) compose).get("services");
    dockerfile = Files.readString(docker.resolve("Dockerfile"));
  }

  @Test
  void composeHasTheClusterTheStoreAndTheClient() {
    assertThat(services)
        .containsKeys("jobmanager", "taskmanager", "sql-client", "minio", "create-bucket");
    assertThat(service("jobmanager").get("command")).isEqualTo("jobmanager");
    assertThat(service("taskmanager").get("command")).isEqualTo("taskmanager");
  }

  @Test
  void flinkServicesRunTheImageOfTheDockerfile() {
    for (String name : FLINK_SERVICES) {
      Map<String, Object> build = map(service(name).get("build"));
      Path context = docker.resolve(build.get("context").toString()).normalize();
      assertThat(context).as(name).isEqualTo(root);
      assertThat(context.resolve(build.get("dockerfile").toString()))
          .as(name)
          .isEqualTo(docker.resolve("Dockerfile"));
    }
  }

  @Test
  void dockerfileUsesTheBuildsFlinkVersionAndJava17() {
    assertThat(arg("FLINK_IMAGE"))
        .isEqualTo("flink:" + System.getProperty("flink.version") + "-scala_2.12-java17");
  }

  @Test
  void dockerfileCopiesAJarTheBuildMakes() {
    String jar = arg("CONNECTOR_JAR");
    assertThat(jar)
        .isEqualTo(
            "flink-sql-connector-lance/target/flink-sql-connector-lance-"
                + System.getProperty("project.version")
                + ".jar");
    assertThat(root.resolve(jar)).isRegularFile();
    assertThat(dockerfile).contains("COPY --chown=flink:flink ${CONNECTOR_JAR} /opt/flink/lib/");
  }

  @Test
  void dockerfileGivesEveryFlinkJvmTheFlagLanceNeeds() {
    String opens = "--add-opens=java.base/java.nio=ALL-UNNAMED";
    assertThat(System.getProperty("lance.jvm.opens")).contains(opens);
    for (String process : List.of("jobmanager", "taskmanager", "client", "sql-gateway")) {
      assertThat(dockerfile).contains("\"-Denv.java.opts." + process + "=" + opens + "\"");
    }
  }

  @Test
  void clusterServicesFindTheJobManager() {
    for (String name : FLINK_SERVICES) {
      assertThat(flinkProperties(name)).containsEntry("jobmanager.rpc.address", "jobmanager");
    }
    assertThat(flinkProperties("sql-client")).containsEntry("rest.address", "jobmanager");
  }

  @Test
  void sqlClientRunsTheScriptsOfDockerSql() {
    assertThat(service("sql-client").get("volumes"))
        .isEqualTo(List.of("./sql:/opt/flink-lance/sql:ro"));
    String command = service("sql-client").get("command").toString();
    Matcher files = Pattern.compile("/opt/flink-lance/sql/(\\S+)").matcher(command);
    int count = 0;
    while (files.find()) {
      assertThat(docker.resolve("sql").resolve(files.group(1))).isRegularFile();
      count++;
    }
    assertThat(count).as("scripts in %s", command).isEqualTo(2);
  }

  @Test
  void catalogUsesTheStoreOfTheComposeFile() throws IOException {
    String init = Files.readString(docker.resolve("sql/init.sql"));
    Map<String, Object> minio = map(service("minio").get("environment"));
    assertThat(option(init, "storage.aws_access_key_id")).isEqualTo(minio.get("MINIO_ROOT_USER"));
    assertThat(option(init, "storage.aws_secret_access_key"))
        .isEqualTo(minio.get("MINIO_ROOT_PASSWORD"));
    assertThat(option(init, "storage.aws_endpoint")).isEqualTo("http://minio:9000");
    assertThat(option(init, "storage.aws_region")).isNotBlank();
    assertThat(service("minio").get("ports")).asList().contains("9000:9000");
    String bucket = option(init, "warehouse").replaceFirst("^s3://([^/]+)/.*", "$1");
    assertThat(service("create-bucket").get("entrypoint").toString())
        .contains("mc mb --ignore-existing store/" + bucket);
  }

  @Test
  void walkthroughNamesNoEnvironment() throws IOException {
    // so that it runs unchanged against any `lake` catalog (the e2e tests run it locally)
    String walkthrough = Files.readString(docker.resolve("sql/walkthrough.sql"));
    assertThat(walkthrough)
        .doesNotContain("s3://", "file://", "storage.", "minio", "'path'", "CREATE CATALOG")
        .contains("lake.");
    // ... and the catalog it uses is the one init.sql creates
    assertThat(Files.readString(docker.resolve("sql/init.sql")))
        .containsPattern("CREATE CATALOG lake WITH \\(\\s*'type' = 'lance'");
  }

  private static String arg(String name) {
    Matcher m = Pattern.compile("(?m)^ARG " + name + "=(\\S+)$").matcher(dockerfile);
    assertThat(m.find()).as("ARG %s in the Dockerfile", name).isTrue();
    return m.group(1);
  }

  private static String option(String sql, String key) {
    Matcher m = Pattern.compile("'" + Pattern.quote(key) + "'\\s*=\\s*'([^']*)'").matcher(sql);
    assertThat(m.find()).as("option %s", key).isTrue();
    return m.group(1);
  }

  private static Map<String, String> flinkProperties(String name) {
    Object text = map(service(name).get("environment")).get("FLINK_PROPERTIES");
    Map<String, String> properties = new LinkedHashMap<>();
    text.toString()
        .lines()
        .filter(line -> line.contains(":"))
        .forEach(
            line ->
                properties.put(
                    line.substring(0, line.indexOf(':')).trim(),
                    line.substring(line.indexOf(':') + 1).trim()));
    return properties;
  }

  /** A service with YAML merge keys ({@code <<: *flink}) applied. */
  private static Map<String, Object> service(String name) {
    Map<String, Object> service = map(services.get(name));
    Map<String, Object> merged = new LinkedHashMap<>();
    if (service.containsKey("<<")) {
      merged.putAll(map(service.get("<<")));
    }
    merged.putAll(service);
    merged.remove("<<");
    return merged;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object yaml) {
    assertThat(yaml).isInstanceOf(Map.class);
    return (Map<String, Object>) yaml;
  }
}
