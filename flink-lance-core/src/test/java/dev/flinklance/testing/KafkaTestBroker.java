package dev.flinklance.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.flink.util.FileUtils;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A Kafka broker in the test JVM: Kafka's own {@code KafkaRaftServer}, broker and controller in one
 * node (KRaft), storage in a temporary directory formatted with Kafka's {@code Formatter}, both
 * listeners on 127.0.0.1 at free ports ({@code KafkaClusterTestKit} would bind every interface).
 * Log retention is off ({@code log.retention.ms = -1}): records with old event timestamps would
 * otherwise fall to the default 7-day retention under a running job.
 *
 * <p>A module whose tests use it declares, in test scope, {@code org.apache.kafka:kafka_2.13}
 * (version managed by the parent pom): a test-jar does not bring its own dependencies along.
 *
 * <p>Use it as a static JUnit 5 extension ({@code @RegisterExtension static final KafkaTestBroker
 * KAFKA = new KafkaTestBroker();}) or on its own ({@code try (KafkaTestBroker kafka = new
 * KafkaTestBroker().start())}).
 */
public final class KafkaTestBroker implements BeforeAllCallback, AfterAllCallback, AutoCloseable {
  private static final String HOST = "127.0.0.1";
  private static final int NODE_ID = 1;
  private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(60);

  private Path directory;
  private KafkaRaftServer server;
  private String bootstrapServers;

  /** Formats the storage and starts the broker; returns once it serves requests. */
  public KafkaTestBroker start() throws Exception {
    directory = Files.createTempDirectory("kafka-test-broker");
    int brokerPort = freePort();
    int controllerPort = freePort();
    String logDirectory = directory.resolve("log").toString();
    Properties properties = new Properties();
    properties.put("process.roles", "broker,controller");
    properties.put("node.id", Integer.toString(NODE_ID));
    properties.put("controller.quorum.voters", NODE_ID + "@" + HOST + ":" + controllerPort);
    properties.put(
        "listeners",
        "PLAINTEXT://" + HOST + ":" + brokerPort + ",CONTROLLER://" + HOST + ":" + controllerPort);
    properties.put("advertised.listeners", "PLAINTEXT://" + HOST + ":" + brokerPort);
    properties.put("controller.listener.names", "CONTROLLER");
    properties.put("inter.broker.listener.name", "PLAINTEXT");
    properties.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    properties.put("log.dirs", logDirectory);
    properties.put("log.retention.ms", "-1");
    properties.put("offsets.topic.replication.factor", "1");
    properties.put("transaction.state.log.replication.factor", "1");
    properties.put("transaction.state.log.min.isr", "1");
    properties.put("share.coordinator.state.topic.replication.factor", "1");
    properties.put("share.coordinator.state.topic.min.isr", "1");
    properties.put("group.initial.rebalance.delay.ms", "0");
    properties.put("num.partitions", "1");
    KafkaConfig config = KafkaConfig.fromProps(properties, false);

    new Formatter()
        .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
        .setClusterId(Uuid.randomUuid().toString())
        .setNodeId(NODE_ID)
        .setDirectories(List.of(logDirectory))
        .setMetadataLogDirectory(logDirectory)
        .setControllerListenerName("CONTROLLER")
        .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
        .run();
    server = new KafkaRaftServer(config, Time.SYSTEM);
    server.startup();
    bootstrapServers = HOST + ":" + brokerPort;
    try (Admin admin = admin()) {
      admin.describeCluster().nodes().get(ADMIN_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    }
    return this;
  }

  /** {@code host:port} of the broker's listener, for {@code bootstrap.servers}. */
  public String bootstrapServers() {
    return bootstrapServers;
  }

  /** Creates a topic of {@code partitions} partitions and waits until it exists. */
  public void createTopic(String topic, int partitions) {
    try (Admin admin = admin()) {
      admin
          .createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
          .all()
          .get(ADMIN_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted creating topic " + topic, e);
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("cannot create topic " + topic, e);
    }
  }

  /**
   * Sends {@code values} (strings, without keys) to partition 0 of {@code topic}, in order, and
   * waits until every one is acknowledged.
   */
  public void send(String topic, List<String> values) {
    Map<String, Object> config =
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrapServers,
            ProducerConfig.ACKS_CONFIG,
            "all",
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
            StringSerializer.class.getName(),
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
            StringSerializer.class.getName());
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
      for (String value : values) {
        producer.send(new ProducerRecord<>(topic, 0, null, value));
      }
      producer.flush();
    }
  }

  private Admin admin() {
    return Admin.create(
        Map.of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrapServers,
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
            (int) ADMIN_TIMEOUT.toMillis()));
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getByName(HOST))) {
      return socket.getLocalPort();
    }
  }

  @Override
  public void close() {
    try {
      if (server != null) {
        server.shutdown();
        server.awaitShutdown();
      }
    } finally {
      server = null;
      if (directory != null) {
        try {
          FileUtils.deleteDirectory(directory.toFile());
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    start();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    close();
  }
}
