package dev.flinklance.cdc;

import static dev.flinklance.cdc.testing.Debezium.column;
import static dev.flinklance.cdc.testing.Debezium.row;
import static dev.flinklance.cdc.testing.Inventory.CUSTOMERS;
import static dev.flinklance.cdc.testing.Inventory.customer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.cdc.testing.Debezium;
import dev.flinklance.sink.dynamic.DynamicRecord;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Debezium envelopes (with and without schema) as changes of Lance primary-key tables. */
class DebeziumChangesTest {
  private static final String TOPIC = "dbserver1.inventory.customers";

  private final DebeziumChanges changes =
      new DebeziumChanges(new TableRouting("lake", null, null, "", ""));

  @ParameterizedTest(name = "schema included: {0}")
  @ValueSource(booleans = {true, false})
  void snapshotCreateUpdateDeleteBecomeChangesByKey(boolean withSchema) {
    var sally = customer(1001, "Sally", "Thomas", "sally@example.com");
    var sally2 = customer(1001, "Sally", "Thomas", "s@example.org");
    Object id = withSchema ? 1001 : StringData.fromString("1001");
    assertThat(parse(CUSTOMERS, "r", null, sally, withSchema).row())
        .isEqualTo(expected(RowKind.INSERT, id, "Sally", "Thomas", "sally@example.com"));
    assertThat(parse(CUSTOMERS, "c", null, sally, withSchema).row())
        .isEqualTo(expected(RowKind.INSERT, id, "Sally", "Thomas", "sally@example.com"));
    assertThat(parse(CUSTOMERS, "u", sally, sally2, withSchema).row())
        .isEqualTo(expected(RowKind.UPDATE_AFTER, id, "Sally", "Thomas", "s@example.org"));
    assertThat(parse(CUSTOMERS, "d", sally2, null, withSchema).row())
        .isEqualTo(expected(RowKind.DELETE, id, "Sally", "Thomas", "s@example.org"));
  }

  @Test
  void theRowTypeComesFromTheSchemaWithOnlyTheKeyNotNull() {
    DynamicRecord record =
        parse(CUSTOMERS, "c", null, row("id", 1, "first_name", "A", "email", "a@b"), true);
    assertThat(record.database()).isEqualTo("lake");
    assertThat(record.table()).isEqualTo("customers");
    assertThat(record.primaryKey()).containsExactly("id");
    assertThat(record.rowType().asSummaryString())
        .isEqualTo(
            "ROW<`id` INT NOT NULL, `first_name` STRING, `last_name` STRING, `email` STRING>");
  }

  @Test
  void withoutSchemaEveryColumnIsString() {
    DynamicRecord record =
        parse(CUSTOMERS, "c", null, row("id", 1, "first_name", "A", "email", null), false);
    assertThat(record.rowType().asSummaryString())
        .isEqualTo("ROW<`id` STRING NOT NULL, `first_name` STRING, `email` STRING>");
  }

  /** A source table gains a nullable column: its messages' schema says so, the row type grows. */
  @Test
  void aNewColumnInTheSchemaWidensTheRowType() {
    Debezium.Table wider = CUSTOMERS.withColumn(column("vip", "boolean"));
    DynamicRecord record =
        parse(wider, "c", null, row("id", 2, "first_name", "B", "email", "b@c", "vip", true), true);
    assertThat(record.rowType().getFieldNames())
        .containsExactly("id", "first_name", "last_name", "email", "vip");
    assertThat(record.row().getBoolean(4)).isTrue();
  }

  /** Debezium is at-least-once: a replayed event is the same change, applied by key. */
  @Test
  void aDuplicatedEventIsTheSameChange() {
    var row = row("id", 7, "first_name", "G", "email", "g@h");
    assertThat(parse(CUSTOMERS, "u", row, row, true))
        .isEqualTo(parse(CUSTOMERS, "u", row, row, true));
  }

  @Test
  void aCompositeKeyKeepsItsOrder() {
    Debezium.Table lines =
        Debezium.table(
            "inventory",
            "order_lines",
            List.of("order_id", "line"),
            column("order_id", "int32"),
            column("line", "int16"),
            column("sku", "string"));
    DynamicRecord record = parse(lines, "c", null, row("order_id", 1, "line", 2, "sku", "X"), true);
    assertThat(record.primaryKey()).containsExactly("order_id", "line");
  }

  @Test
  void tombstonesAndSchemaChangeEventsGiveNothing() {
    assertThat(changes.parse(TOPIC, bytes("{\"id\":1}"), null)).isEmpty();
    String ddl =
        "{\"source\":{\"db\":\"inventory\",\"table\":\"customers\"},\"databaseName\":\"inventory\","
            + "\"ddl\":\"ALTER TABLE customers ADD COLUMN vip BOOLEAN\",\"tableChanges\":[]}";
    assertThat(changes.parse("dbserver1", null, bytes(ddl))).isEmpty();
  }

  @Test
  void theTableComesFromTheTopicWhenTheEnvelopeHasNoSource() {
    String value = "{\"before\":null,\"after\":{\"id\":1,\"name\":\"x\"},\"op\":\"c\"}";
    Optional<DynamicRecord> record =
        changes.parse("dbserver1.inventory.products", bytes("{\"id\":1}"), bytes(value));
    assertThat(record).map(DynamicRecord::table).contains("products");
  }

  @Test
  void includeExcludePrefixAndSuffixRouteTables() {
    DebeziumChanges routed =
        new DebeziumChanges(
            new TableRouting("lake", "cust.*|orders", "customers_tmp", "src_", "_v1"));
    var row = row("id", 1, "first_name", "A", "email", "a@b");
    assertThat(parse(routed, CUSTOMERS, row))
        .map(DynamicRecord::table)
        .contains("src_customers_v1");
    Debezium.Table temporary =
        new Debezium.Table("inventory", "customers_tmp", CUSTOMERS.columns(), List.of("id"));
    assertThat(parse(routed, temporary, row)).isEmpty();
    Debezium.Table products =
        new Debezium.Table("inventory", "products", CUSTOMERS.columns(), List.of("id"));
    assertThat(parse(routed, products, row)).isEmpty();
  }

  @Test
  void aTableWithoutKeyIsRefusedByName() {
    String value = CUSTOMERS.value("c", null, row("id", 1, "first_name", "A", "email", "x"), true);
    assertThatThrownBy(() -> changes.parse(TOPIC, null, bytes(value)))
        .isInstanceOf(InvalidMessageException.class)
        .hasMessageContaining("table 'customers' has no primary key")
        .hasMessageContaining("--exclude-tables");
  }

  @Test
  void anExcludedTableWithoutKeyIsLeftOut() {
    DebeziumChanges routed =
        new DebeziumChanges(new TableRouting("lake", null, "customers", "", ""));
    String value = CUSTOMERS.value("c", null, row("id", 1, "first_name", "A", "email", "x"), true);
    assertThat(routed.parse(TOPIC, null, bytes(value))).isEmpty();
  }

  @Test
  void invalidMessagesSayWhatIsWrong() {
    assertThatThrownBy(() -> changes.parse(TOPIC, null, bytes("{not json")))
        .isInstanceOf(InvalidMessageException.class)
        .hasMessageStartingWith("the value is not JSON");
    assertThatThrownBy(() -> changes.parse(TOPIC, bytes("{\"id\":1}"), bytes("{\"id\":1}")))
        .hasMessage("the value is not a Debezium change event (no 'op'), table 'customers'");
    String truncate = "{\"source\":{\"db\":\"inventory\",\"table\":\"customers\"},\"op\":\"t\"}";
    assertThatThrownBy(() -> changes.parse(TOPIC, bytes("{\"id\":1}"), bytes(truncate)))
        .hasMessage(
            "table 'customers': operation 't' cannot be applied by key (r, c, u and d can)");
    String nullKey = CUSTOMERS.value("c", null, row("id", null, "first_name", "A"), true);
    assertThatThrownBy(() -> changes.parse(TOPIC, bytes("{\"id\":null}"), bytes(nullKey)))
        .hasMessage("table 'customers': the key column 'id' is null");
  }

  private Optional<DynamicRecord> parse(
      DebeziumChanges parser, Debezium.Table table, java.util.Map<String, ?> row) {
    return parser.parse(
        TOPIC, bytes(table.key(row, true)), bytes(table.value("c", null, row, true)));
  }

  private DynamicRecord parse(
      Debezium.Table table,
      String op,
      java.util.Map<String, ?> before,
      java.util.Map<String, ?> after,
      boolean withSchema) {
    java.util.Map<String, ?> image = after == null ? before : after;
    return changes
        .parse(
            TOPIC,
            bytes(table.key(image, withSchema)),
            bytes(table.value(op, before, after, withSchema)))
        .orElseThrow();
  }

  private static GenericRowData expected(
      RowKind kind, Object id, String first, String last, String email) {
    return GenericRowData.ofKind(
        kind,
        id,
        StringData.fromString(first),
        StringData.fromString(last),
        StringData.fromString(email));
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
