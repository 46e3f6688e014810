package dev.flinklance.cdc;

import static dev.flinklance.cdc.testing.Debezium.column;
import static dev.flinklance.cdc.testing.Debezium.decimal;
import static dev.flinklance.cdc.testing.Debezium.row;
import static dev.flinklance.cdc.testing.Inventory.CUSTOMERS;
import static dev.flinklance.cdc.testing.Inventory.customer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.cdc.testing.Debezium;
import dev.flinklance.cdc.testing.DocCommand;
import dev.flinklance.testing.Await;
import dev.flinklance.testing.KafkaTestBroker;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.Repository;
import dev.flinklance.testing.SqlStatements;
import dev.flinklance.testing.TestClusters;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.arrow.vector.util.Text;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/cdc.md's walk-through against a Kafka broker in the test JVM: the documented command line
 * (the test's broker and warehouse, a short checkpoint interval), MySQL-shaped Debezium events with
 * schemas (customers, orders: DECIMAL, DATE, DATETIME(6), TIMESTAMP with zone, JSON, ENUM, BLOB)
 * and without (products), snapshot then changes, replayed events, a delete and re-insert of a key,
 * a keyless table the command excludes, a table and a column that appear while the job runs. Every
 * Lance table, read with plain lance-core, equals the model the same events give, row by row; the
 * page's SQL then runs through the Lance catalog on the synced tables.
 */
class LanceCdcSyncITCase {
  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();
  @RegisterExtension static final KafkaTestBroker KAFKA = new KafkaTestBroker();

  private static final Duration TIMEOUT = Duration.ofMinutes(3);
  private static final String PREFIX = "dbserver1.inventory.";

  private static final Debezium.Table CUSTOMERS_WITH_VIP =
      CUSTOMERS.withColumn(column("vip", "boolean"));
  private static final Debezium.Table ORDERS =
      Debezium.table(
          "inventory",
          "orders",
          List.of("order_number"),
          column("order_number", "int32"),
          column("order_date", "int32", "io.debezium.time.Date"),
          column("purchaser", "int32"),
          decimal("price", 10, 2),
          column("created_at", "int64", "io.debezium.time.MicroTimestamp"),
          column("paid_at", "string", "io.debezium.time.ZonedTimestamp"),
          column("details", "string", "io.debezium.data.Json"),
          column("status", "string", "io.debezium.data.Enum"),
          column("receipt", "bytes"));
  private static final Debezium.Table PRODUCTS =
      Debezium.table(
          "inventory",
          "products",
          List.of("id"),
          column("id", "int32"),
          column("name", "string"),
          column("weight", "float64"));
  private static final Debezium.Table AUDIT_LOG =
      Debezium.table("inventory", "audit_log", List.of(), column("message", "string"));

  @TempDir Path dir;

  private final Model model = new Model();

  @Test
  void theWalkThroughSyncsEveryTableToItsModel() throws Exception {
    String warehouse = dir.resolve("warehouse").toString();
    for (Debezium.Table table : List.of(CUSTOMERS, ORDERS, AUDIT_LOG)) {
      KAFKA.createTopic(PREFIX + table.name(), 2);
    }
    // the snapshot, in the topics before the job starts
    List<Event> snapshot = new ArrayList<>();
    snapshot.add(
        insert(CUSTOMERS, "r", customer(1001, "Sally", "Thomas", "sally.thomas@acme.com")));
    snapshot.add(insert(CUSTOMERS, "r", customer(1002, "George", "Bailey", "gbailey@foobar.com")));
    snapshot.add(insert(CUSTOMERS, "r", customer(1003, "Edward", "Walker", "ed@walker.com")));
    snapshot.add(insert(CUSTOMERS, "r", customer(1004, "Anne", "Kretchmar", "annek@noanswer.org")));
    snapshot.add(insert(ORDERS, "r", order(10001, 1001, "1234.50", "shipped")));
    snapshot.add(insert(ORDERS, "r", order(10002, 1002, "19.99", "pending")));
    snapshot.add(insert(ORDERS, "r", order(10003, 1002, "-0.01", "pending")));
    snapshot.add(insert(ORDERS, "r", order(10004, 1003, "99999999.99", "cancelled")));
    snapshot.add(keyless(row("message", "not synced: no primary key, excluded by the command")));
    send(snapshot);

    List<String> args = documentedCommand(warehouse);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    LanceCdcSyncJob.build(env, args.toArray(String[]::new));
    JobClient job = env.executeAsync("Lance CDC sync test");
    try {
      awaitModel(warehouse, job, "the snapshot");

      // changes, with replays (Debezium is at-least-once) and a delete + re-insert of a key
      List<Event> changes = new ArrayList<>();
      var sally = customer(1001, "Sally", "Thomas", "sally.thomas@acme.com");
      var sally2 = customer(1001, "Sally", "Thomas", "sally@thomas.org");
      changes.add(update(CUSTOMERS, sally, sally2));
      changes.add(update(CUSTOMERS, sally, sally2));
      changes.add(delete(CUSTOMERS, customer(1004, "Anne", "Kretchmar", "annek@noanswer.org")));
      changes.add(delete(CUSTOMERS, customer(1003, "Edward", "Walker", "ed@walker.com")));
      changes.add(insert(CUSTOMERS, "c", customer(1003, "Edwina", "Walker", "edwina@walker.com")));
      changes.add(delete(CUSTOMERS, customer(1004, "Anne", "Kretchmar", "annek@noanswer.org")));
      changes.add(
          update(
              ORDERS,
              order(10002, 1002, "19.99", "pending"),
              order(10002, 1002, "19.99", "shipped")));
      changes.add(delete(ORDERS, order(10003, 1002, "-0.01", "pending")));
      send(changes);
      awaitModel(warehouse, job, "the changes");

      // mid-stream: a column the source gains, and a table on a new topic, without schemas
      KAFKA.createTopic(PREFIX + PRODUCTS.name(), 1);
      List<Event> growth = new ArrayList<>();
      var george = customer(1002, "George", "Bailey", "gbailey@foobar.com");
      var vipGeorge = new LinkedHashMap<String, Object>(george);
      vipGeorge.put("vip", true);
      growth.add(update(CUSTOMERS_WITH_VIP, george, vipGeorge));
      var kim = customer(1005, "Kim", "Lee", "kim@lee.io");
      kim.put("vip", false);
      growth.add(insert(CUSTOMERS_WITH_VIP, "c", kim));
      growth.add(insert(PRODUCTS, "c", row("id", 101, "name", "scooter", "weight", 3.14)));
      growth.add(insert(PRODUCTS, "c", row("id", 102, "name", "car battery", "weight", 8.1)));
      growth.add(
          update(
              PRODUCTS,
              row("id", 101, "name", "scooter", "weight", 3.14),
              row("id", 101, "name", "scooter", "weight", 3.5)));
      growth.add(delete(PRODUCTS, row("id", 102, "name", "car battery", "weight", 8.1)));
      growth.add(insert(PRODUCTS, "c", row("id", 103, "name", "hammer", "weight", null)));
      send(growth);
      send(List.of(growth.get(growth.size() - 1))); // a replay of the last one
      awaitModel(warehouse, job, "the new column and the new table");

      runTheDocumentedQueries(warehouse);
    } finally {
      Await.cancel(job, TIMEOUT);
    }
  }

  /**
   * A source column retyped (MySQL's {@code MODIFY COLUMN qty VARCHAR(10)}): lance-core cannot
   * follow, the job fails naming table and column, and the table keeps what was committed.
   */
  @Test
  void aColumnRetypedAtTheSourceFailsTheJobNamingTableAndColumn() throws Exception {
    String warehouse = dir.resolve("shop").toString();
    String topic = "dbserver2.shop.items";
    KAFKA.createTopic(topic, 1);
    Debezium.Table items =
        Debezium.table(
            "shop", "items", List.of("id"), column("id", "int32"), column("qty", "int32"));
    Debezium.Table retyped =
        Debezium.table(
            "shop", "items", List.of("id"), column("id", "int32"), column("qty", "string"));
    var five = row("id", 1, "qty", 5);
    send(topic, items.key(five, true), items.value("c", null, five, true));
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    LanceCdcSyncJob.build(
        env,
        "--bootstrap-servers",
        KAFKA.bootstrapServers(),
        "--topics",
        topic,
        "--warehouse",
        warehouse,
        "--database",
        "shop",
        "--checkpoint-interval",
        "500ms");
    JobClient job = env.executeAsync("Lance CDC sync of a retyped column");
    String table = warehouse + "/shop/items.lance";
    try {
      Await.until(
          "the first row committed",
          TIMEOUT,
          job,
          () -> LanceTestTables.hasVersion(table) && LanceTestTables.countRows(table) == 1);
      var text = row("id", 1, "qty", "five");
      send(topic, retyped.key(text, true), retyped.value("u", five, text, true));
      Await.until(
          "the job to fail", TIMEOUT, () -> job.getJobStatus().get().isGloballyTerminalState());
      assertThatThrownBy(() -> job.getJobExecutionResult().get())
          .hasStackTraceContaining("items")
          .hasStackTraceContaining("'qty'");
      assertThat(LanceTestTables.readColumns(table, List.of("id", "qty")))
          .containsExactly(List.of(1, 5));
    } finally {
      if (!job.getJobStatus().get().isGloballyTerminalState()) {
        Await.cancel(job, TIMEOUT);
      }
    }
  }

  // ---- the job's command line: docs/cdc.md's, on the test's broker and warehouse

  private static List<String> documentedCommand(String warehouse) throws Exception {
    List<String> documented = DocCommand.cdcSyncArguments();
    Map<String, String> replaced =
        Map.of(
            "--bootstrap-servers",
            KAFKA.bootstrapServers(),
            "--warehouse",
            warehouse,
            "--checkpoint-interval",
            "500ms");
    List<String> args = new ArrayList<>();
    for (int i = 0; i < documented.size(); i += 2) {
      String key = documented.get(i);
      if (key.startsWith("--storage.")) {
        continue; // the docs' S3 region; the test's warehouse is local
      }
      args.add(key);
      args.add(replaced.getOrDefault(key, documented.get(i + 1)));
    }
    // a topic created while the job runs is found at the next discovery (default 5 min)
    args.addAll(List.of("--kafka.partition.discovery.interval.ms", "500", "--parallelism", "2"));
    return args;
  }

  // ---- events: sent to Kafka and applied to the model

  private record Event(Debezium.Table table, String key, String value, Runnable apply) {}

  private Event insert(Debezium.Table table, String op, Map<String, Object> after) {
    return event(table, op, null, after);
  }

  private Event update(
      Debezium.Table table, Map<String, Object> before, Map<String, Object> after) {
    return event(table, "u", before, after);
  }

  private Event delete(Debezium.Table table, Map<String, Object> before) {
    return event(table, "d", before, null);
  }

  private Event keyless(Map<String, Object> after) {
    return new Event(AUDIT_LOG, null, AUDIT_LOG.value("c", null, after, true), () -> {});
  }

  private Event event(
      Debezium.Table table, String op, Map<String, Object> before, Map<String, Object> after) {
    Map<String, Object> image = after == null ? before : after;
    // products' events come as Debezium writes them with schemas.enable = false
    boolean schema = table != PRODUCTS;
    return new Event(
        table,
        table.key(image, schema),
        table.value(op, before, after, schema),
        () -> model.apply(table, op, image));
  }

  private static void send(String topic, String key, String value) {
    try (KafkaProducer<String, String> producer = producer()) {
      producer.send(new ProducerRecord<>(topic, key, value));
      producer.flush();
    }
  }

  private static KafkaProducer<String, String> producer() {
    return new KafkaProducer<>(
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers(),
            ProducerConfig.ACKS_CONFIG, "all",
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName()));
  }

  private void send(List<Event> events) {
    try (KafkaProducer<String, String> producer = producer()) {
      for (Event event : events) {
        // the default partitioner sends a key's events to one partition, as Debezium's producer
        producer.send(
            new ProducerRecord<>(PREFIX + event.table().name(), event.key(), event.value()));
        event.apply().run();
      }
      producer.flush();
    }
  }

  // ---- the model: each source table's rows by key, as Lance reads them back

  /** How a column's Debezium JSON value reads back from the Lance table (Arrow's Java objects). */
  private static final Map<String, Function<Object, Object>> READ_BACK =
      Map.of(
          "price",
          value ->
              new BigDecimal(new BigInteger(Base64.getDecoder().decode((String) value)), 2)
                  .toPlainString(),
          "created_at",
          value ->
              LocalDateTime.ofEpochSecond(
                      Math.floorDiv((Long) value, 1_000_000L),
                      (int) Math.floorMod((Long) value, 1_000_000L) * 1000,
                      ZoneOffset.UTC)
                  .toString(),
          "paid_at",
          value -> {
            Instant instant = OffsetDateTime.parse((String) value).toInstant();
            return ChronoUnit.MICROS.between(Instant.EPOCH, instant);
          });

  private static final class Model {
    /** table -> key -> column -> value as read back. */
    final Map<String, Map<String, Map<String, Object>>> tables = new TreeMap<>();

    final Map<String, List<String>> columns = new TreeMap<>();

    void apply(Debezium.Table table, String op, Map<String, Object> image) {
      List<String> names = table.columns().stream().map(Debezium.Column::name).toList();
      columns.merge(table.name(), names, (old, wider) -> wider.size() > old.size() ? wider : old);
      Map<String, Map<String, Object>> rows =
          tables.computeIfAbsent(table.name(), name -> new TreeMap<>());
      String key = String.valueOf(image.get(table.key().get(0)));
      if (op.equals("d")) {
        rows.remove(key);
        return;
      }
      Map<String, Object> row = new LinkedHashMap<>();
      for (String column : names) {
        Object value = image.get(column);
        if (value != null && table != PRODUCTS) {
          value = READ_BACK.getOrDefault(column, v -> v).apply(value);
        }
        // without a schema every column is the JSON text of the value
        row.put(column, value == null ? null : table == PRODUCTS ? text(value) : value);
      }
      rows.put(key, row);
    }

    /** A table's rows in key order, NULL in the columns added after a row was written. */
    List<Map<String, Object>> rows(String table) {
      List<Map<String, Object>> rows = new ArrayList<>();
      for (Map<String, Object> row : tables.get(table).values()) {
        Map<String, Object> full = new LinkedHashMap<>();
        columns.get(table).forEach(column -> full.put(column, row.get(column)));
        rows.add(full);
      }
      return rows;
    }

    private static String text(Object value) {
      return value.toString();
    }
  }

  private void awaitModel(String warehouse, JobClient job, String what) throws Exception {
    AtomicReference<String> seen = new AtomicReference<>("nothing read yet");
    try {
      Await.until(
          "the Lance tables to equal the model after " + what,
          TIMEOUT,
          job,
          () -> {
            Map<String, List<Map<String, Object>>> actual = new TreeMap<>();
            try {
              for (String table : model.tables.keySet()) {
                actual.put(table, read(warehouse, table, model.columns.get(table)));
              }
            } catch (IllegalStateException e) {
              seen.set(String.valueOf(e.getCause()));
              return false; // a table not there yet, or without a column it will have
            }
            Map<String, List<Map<String, Object>>> expected = new TreeMap<>();
            model.tables.forEach((table, rows) -> expected.put(table, model.rows(table)));
            seen.set("Lance: " + actual + "\nmodel: " + expected);
            return actual.equals(expected);
          });
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\n" + seen.get(), e);
    }
    assertThat(LanceTestTables.exists(warehouse + "/inventory/audit_log.lance")).isFalse();
  }

  /** A table's rows in key order, each column as the model holds it. */
  private static List<Map<String, Object>> read(
      String warehouse, String table, List<String> columns) {
    String uri = warehouse + "/inventory/" + table + ".lance";
    List<Map<String, Object>> rows = new ArrayList<>();
    for (List<Object> values : LanceTestTables.readColumns(uri, columns)) {
      Map<String, Object> row = new LinkedHashMap<>();
      for (int i = 0; i < columns.size(); i++) {
        row.put(columns.get(i), normalized(values.get(i)));
      }
      rows.add(row);
    }
    rows.sort(Comparator.comparing(row -> String.valueOf(row.get(columns.get(0)))));
    return rows;
  }

  private static Object normalized(Object value) {
    if (value instanceof Text text) {
      return text.toString();
    }
    if (value instanceof byte[] bytes) {
      return Base64.getEncoder().encodeToString(bytes);
    }
    if (value instanceof BigDecimal decimal) {
      return decimal.toPlainString();
    }
    if (value instanceof LocalDateTime time) {
      return time.toString();
    }
    return value;
  }

  // ---- the page's SQL on the synced warehouse

  private static final Pattern SQL_BLOCK = Pattern.compile("```sql\\n(.*?)```", Pattern.DOTALL);

  private void runTheDocumentedQueries(String warehouse) throws Exception {
    String page = Files.readString(Repository.root().resolve("docs/cdc.md"));
    Matcher block = SQL_BLOCK.matcher(page);
    assertThat(block.find()).as("docs/cdc.md has a ```sql block").isTrue();
    TableEnvironment sql = TableEnvironment.create(EnvironmentSettings.inBatchMode());
    List<List<Row>> results = new ArrayList<>();
    for (SqlStatements.Statement statement : SqlStatements.split(block.group(1))) {
      String text =
          statement
              .sql()
              .replace("'s3://lake/warehouse'", "'" + warehouse + "'")
              .replaceAll(",\\s*'storage\\.[^']*'\\s*=\\s*'[^']*'", "");
      try (CloseableIterator<Row> rows = sql.executeSql(text).collect()) {
        List<Row> collected = new ArrayList<>();
        rows.forEachRemaining(collected::add);
        results.add(collected);
      }
    }
    assertThat(results).hasSize(4);
    assertThat(results.get(1).stream().map(row -> row.getField(0)))
        .containsExactlyInAnyOrder("customers", "orders", "products");
    Map<String, Map<String, Object>> customers = model.tables.get("customers");
    assertThat(results.get(2).stream().map(Row::toString))
        .containsExactlyInAnyOrderElementsOf(
            customers.values().stream()
                .map(
                    c ->
                        Row.of(c.get("id"), c.get("first_name"), c.get("last_name"), c.get("email"))
                            .toString())
                .toList());
    List<String> shipped =
        model.tables.get("orders").values().stream()
            .filter(o -> "shipped".equals(o.get("status")))
            .map(
                o ->
                    Row.of(
                            customers.get(String.valueOf(o.get("purchaser"))).get("first_name"),
                            o.get("order_number"),
                            new BigDecimal((String) o.get("price")))
                        .toString())
            .collect(Collectors.toList());
    assertThat(results.get(3).stream().map(Row::toString))
        .containsExactlyInAnyOrderElementsOf(shipped);
  }

  // ---- rows of the example tables

  private static Map<String, Object> order(int number, int purchaser, String price, String status) {
    BigDecimal decimal = new BigDecimal(price);
    return row(
        "order_number",
        number,
        "order_date",
        19_782 + number % 10,
        "purchaser",
        purchaser,
        "price",
        Base64.getEncoder().encodeToString(decimal.unscaledValue().toByteArray()),
        "created_at",
        1_709_288_130_123_456L + number,
        "paid_at",
        "2024-03-01T12:15:30.12345" + number % 10 + "+02:00",
        "details",
        "{\"gift\": " + (number % 2 == 0) + ", \"items\": [1, 2]}",
        "status",
        status,
        "receipt",
        Base64.getEncoder().encodeToString(new byte[] {(byte) number, 0, -1}));
  }
}
