package dev.flinklance.table.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.ObjectPath;
import org.junit.jupiter.api.Test;

/** How procedures read a table argument: Flink SQL's identifier quoting. */
class TableArgumentTest {

  @Test
  void partsAndBackticks() {
    Map<String, ObjectPath> cases =
        Map.of(
            "t", new ObjectPath("default", "t"),
            "db.t", new ObjectPath("db", "t"),
            "`x.y`", new ObjectPath("default", "x.y"),
            "db.`x.y`", new ObjectPath("db", "x.y"),
            "`d.b`.`x.y`", new ObjectPath("d.b", "x.y"),
            "`a``b`", new ObjectPath("default", "a`b"),
            "a b.ü名", new ObjectPath("a b", "ü名"));
    cases.forEach(
        (argument, path) ->
            assertThat(TableArgument.parse(argument, "default")).as(argument).isEqualTo(path));
  }

  @Test
  void formatReadsBack() {
    for (ObjectPath path :
        List.of(
            new ObjectPath("db", "t"), new ObjectPath("db", "x.y"), new ObjectPath("d.b", "a`b"))) {
      assertThat(TableArgument.parse(TableArgument.format(path), "default")).isEqualTo(path);
    }
    assertThat(TableArgument.format(new ObjectPath("default", "x.y"))).isEqualTo("default.`x.y`");
  }

  @Test
  void malformedArgumentsSayTheRule() {
    for (String argument : List.of("default.x.y", "", "db.", ".t", "`x", "a`b`", "`x`y", "``")) {
      assertThatThrownBy(() -> TableArgument.parse(argument, "default"))
          .as(argument)
          .isInstanceOf(ValidationException.class)
          .hasMessageContaining("Invalid table argument '" + argument + "'")
          .hasMessageContaining("put backticks around a part that holds a '.'");
    }
  }
}
