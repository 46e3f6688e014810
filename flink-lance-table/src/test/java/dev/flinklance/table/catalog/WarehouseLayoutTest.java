package dev.flinklance.table.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.ObjectPath;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The one mapping between catalog names and warehouse locations. */
class WarehouseLayoutTest {

  private static WarehouseLayout layout(String warehouse) {
    return new WarehouseLayout(warehouse, Map.of());
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "/data/lake",
        "file:///data/lake",
        "s3://bucket/lake",
        "gs://bucket/lake",
        "az://container/lake",
        "s3://bucket/lake/"
      })
  void everyStoreMapsNamesTheSameWay(String warehouse) {
    WarehouseLayout layout = layout(warehouse);
    String root =
        warehouse.endsWith("/") ? warehouse.substring(0, warehouse.length() - 1) : warehouse;
    assertThat(layout.database("a b").uri()).isEqualTo(root + "/a b");
    assertThat(layout.table(new ObjectPath("ü名", "x.y")).uri()).isEqualTo(root + "/ü名/x.y.lance");
    assertThat(layout.registry().uri()).isEqualTo(root + "/_databases.lance");
  }

  @Test
  void aWarehouseQueryStaysAfterEveryPath() {
    WarehouseLayout layout = layout("s3+ddb://bucket/lake?ddbTableName=commits");
    assertThat(layout.table(new ObjectPath("db", "t")).uri())
        .isEqualTo("s3+ddb://bucket/lake/db/t.lance?ddbTableName=commits");
    assertThat(layout.registry().uri())
        .isEqualTo("s3+ddb://bucket/lake/_databases.lance?ddbTableName=commits");
  }

  @ParameterizedTest
  @ValueSource(strings = {"file:///data/#lake", "s3://bucket/lake?x=1", "file:///data/la?ke"})
  void aWarehouseThatLanceWouldCutIsRefused(String warehouse) {
    assertThatThrownBy(() -> layout(warehouse))
        .isInstanceOf(ValidationException.class)
        .hasMessageContaining("must not contain '#'");
  }

  @Test
  void namesThatCannotRoundTripAreRefusedWithTheRule() {
    WarehouseLayout layout = layout("file:///data/lake");
    Map<String, String> rules =
        Map.ofEntries(
            Map.entry("#tmp", "'#', '?' or '%'"),
            Map.entry("q?x", "'#', '?' or '%'"),
            Map.entry("%78", "'#', '?' or '%'"),
            Map.entry("a/b", "'/'"),
            Map.entry("a\\b", "'/'"),
            Map.entry("..", "'..'"),
            Map.entry(".", "'..'"),
            Map.entry("s3:x", "':'"),
            Map.entry("t\tb", "control characters"),
            Map.entry("line\nbreak", "control characters"),
            Map.entry("\uD800x", "valid Unicode"),
            Map.entry(" x", "whitespace"),
            Map.entry("x".repeat(250), "at most 249 bytes"));
    rules.forEach(
        (name, rule) -> {
          assertThatThrownBy(() -> layout.table(new ObjectPath("db", name)))
              .as(name)
              .isInstanceOf(ValidationException.class)
              .hasMessageContaining("Invalid Lance table name")
              .hasMessageContaining(rule);
          assertThatThrownBy(() -> layout.database(name))
              .as(name)
              .isInstanceOf(ValidationException.class)
              .hasMessageContaining("Invalid Lance database name");
        });
    assertThat(layout.table(new ObjectPath("db", "x".repeat(249))).uri()).endsWith(".lance");
    assertThatThrownBy(() -> layout.database("")).hasMessageContaining("must not be empty");
    for (String database : List.of("_databases", "_x", "x.lance")) {
      assertThatThrownBy(() -> layout.database(database))
          .as(database)
          .hasMessageContaining("Invalid Lance database name");
    }
    assertThatThrownBy(() -> layout.table(new ObjectPath("#tmp", "t")))
        .hasMessageContaining("Invalid Lance database name '#tmp'");
  }

  @Test
  void listedEntriesMapBackToTheirNames() {
    WarehouseLayout layout = layout("s3://bucket/lake");
    // Lance's directory listing percent-encodes on object stores and not on local disks
    assertThat(layout.tableName("a%20b")).contains("a b");
    assertThat(layout.tableName("a b")).contains("a b");
    assertThat(layout.tableName("%C3%BC%E5%90%8D")).contains("ü名");
    assertThat(layout.tableName("%F0%9F%99%82")).contains("🙂");
    assertThat(layout.tableName("x+y")).contains("x+y");
    assertThat(layout.tableName("x%2Fy")).as("decodes to a refused name").isEmpty();
    assertThat(layout.tableName("t%09b")).isEmpty();
    assertThat(layout.tableName("..")).isEmpty();
  }

  @Test
  void onlyDatabasesAndTablesStrictlyInsideMayBeDeleted() {
    WarehouseLayout layout = layout("s3://bucket/lake");
    layout.checkDeletable(layout.table(new ObjectPath("db", "t")));
    layout.checkDeletable(layout.database("db"));
    assertThatThrownBy(() -> layout.checkDeletable(layout.registry()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Refusing to delete s3://bucket/lake/_databases.lance");
    WarehouseLayout other = layout("s3://bucket/other");
    assertThatThrownBy(() -> layout.checkDeletable(other.database("db")))
        .hasMessageContaining("Refusing to delete s3://bucket/other/db");
  }
}
