package dev.flinklance.cdc.testing;

import static dev.flinklance.cdc.testing.Debezium.column;
import static dev.flinklance.cdc.testing.Debezium.row;

import java.util.List;
import java.util.Map;

/** Tables of Debezium's MySQL example database {@code inventory}. */
public final class Inventory {
  public static final Debezium.Table CUSTOMERS =
      Debezium.table(
          "inventory",
          "customers",
          List.of("id"),
          column("id", "int32"),
          column("first_name", "string"),
          column("last_name", "string"),
          column("email", "string"));

  private Inventory() {}

  public static Map<String, Object> customer(int id, String first, String last, String email) {
    return row("id", id, "first_name", first, "last_name", last, "email", email);
  }
}
