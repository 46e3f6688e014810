package dev.flinklance.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.access.OpenTable;
import dev.flinklance.access.TableRef;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.TestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.schema.LanceField;

/** Column changes on real tables: what Lance committed, the data kept, what is refused. */
class SchemaEvolutionTest {
  private static final RowType ROWS =
      (RowType)
          DataTypes.ROW(
                  DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
                  DataTypes.FIELD("name", DataTypes.STRING().notNull()),
                  DataTypes.FIELD("v", DataTypes.ARRAY(DataTypes.FLOAT().notNull())),
                  DataTypes.FIELD("s", DataTypes.ROW(DataTypes.FIELD("a", DataTypes.INT()))),
                  DataTypes.FIELD("ts", DataTypes.TIMESTAMP(3)))
              .getLogicalType();

  @TempDir Path dir;
  private String uri;

  @BeforeEach
  void table() {
    uri = dir.resolve("t").toString();
    TestTables.create(uri, ROWS, Map.of("v", 2));
    TestTables.append(uri, ROWS, rows(), 3);
  }

  private static List<RowData> rows() {
    List<RowData> rows = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      rows.add(
          GenericRowData.of(
              (long) i,
              StringData.fromString("n" + i),
              new GenericArrayData(new float[] {i, i}),
              GenericRowData.of(i),
              TimestampData.fromEpochMillis(1_000L * i)));
    }
    return rows;
  }

  private long apply(ColumnChange... changes) {
    try (OpenTable table = OpenTable.latest(TableRef.at(uri, Map.of()))) {
      return SchemaEvolution.apply(table, List.of(changes), Map.of("who", "test"));
    }
  }

  private List<String> describe() {
    try (OpenTable table = OpenTable.latest(TableRef.at(uri, Map.of()))) {
      List<String> fields = new ArrayList<>();
      table.dataset().getLanceSchema().fields().forEach(field -> fields.add(describe(field)));
      return fields;
    }
  }

  private static String describe(LanceField field) {
    StringBuilder text = new StringBuilder(field.getName()).append('#').append(field.getId());
    text.append(field.isNullable() ? "" : "!");
    if (field.getMetadata().containsKey(SchemaEvolution.COMMENT)) {
      text.append("'").append(field.getMetadata().get(SchemaEvolution.COMMENT)).append("'");
    }
    if (field.getType() instanceof ArrowType.Struct) {
      text.append(field.getChildren().stream().map(SchemaEvolutionTest::describe).toList());
    }
    return text.toString();
  }

  private static Field nullable(String name, ArrowType type) {
    return new Field(name, FieldType.nullable(type), null);
  }

  @Test
  void everyChangeIsOneStampedCommitThatKeepsTheData() {
    long before = LanceTestTables.latestVersion(uri);
    long version =
        apply(
            new ColumnChange.Add(
                ColumnPath.of("email"),
                nullable("email", ArrowType.Utf8.INSTANCE),
                ColumnPosition.after("name")),
            new ColumnChange.Add(
                ColumnPath.of("s", "b"),
                nullable("b", ArrowType.Utf8.INSTANCE),
                ColumnPosition.LAST),
            new ColumnChange.Rename(ColumnPath.of("name"), "full_name"),
            new ColumnChange.Rename(ColumnPath.of("s", "a"), "a2"),
            new ColumnChange.DropNotNull(ColumnPath.of("full_name")),
            new ColumnChange.Comment(ColumnPath.of("full_name"), "who it is"),
            new ColumnChange.Move(ColumnPath.of("v"), ColumnPosition.FIRST));

    assertThat(version).isEqualTo(before + 1);
    assertThat(describe())
        .containsExactly(
            "v#2", "id#0!", "full_name#1'who it is'", "email#6", "s#3[a2#4, b#7]", "ts#5");
    try (OpenTable table = OpenTable.latest(TableRef.at(uri, Map.of()))) {
      assertThat(table.dataset().getSchema().findField("ts").getType())
          .as("a timestamp without a zone keeps it")
          .isEqualTo(new ArrowType.Timestamp(TimeUnit.MILLISECOND, null));
    }
    assertThat(LanceTestTables.readColumns(uri, List.of("id", "full_name", "email")).toString())
        .isEqualTo("[[0, n0, null], [1, n1, null], [2, n2, null]]");
    assertThat(LanceTestTables.readColumns(uri, List.of("s")).toString())
        .isEqualTo("[[{\"a2\":0}], [{\"a2\":1}], [{\"a2\":2}]]");
    LanceTestTables.Commit commit =
        LanceTestTables.commits(uri).stream()
            .filter(c -> c.version() == version)
            .findFirst()
            .orElseThrow();
    assertThat(commit.operation()).isEqualTo("Project");
    assertThat(commit.properties())
        .containsEntry("who", "test")
        .containsEntry(
            SchemaEvolution.STAMP,
            "ADD email Utf8 AFTER name, ADD s.b Utf8, RENAME name TO full_name, RENAME s.a TO a2,"
                + " MODIFY full_name NULL, COMMENT full_name 'who it is', MODIFY v FIRST");
  }

  @Test
  void dropsAndAddsVectorColumns() {
    Field vector =
        new Field(
            "emb",
            FieldType.nullable(new ArrowType.FixedSizeList(3)),
            List.of(
                new Field(
                    "item",
                    FieldType.notNullable(
                        new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
                    null)));
    apply(
        new ColumnChange.Drop(ColumnPath.of("v")),
        new ColumnChange.Add(ColumnPath.of("emb"), vector, ColumnPosition.LAST));

    assertThat(describe()).containsExactly("id#0!", "name#1!", "s#3[a#4]", "ts#5", "emb#6");
    assertThat(LanceTestTables.readColumns(uri, List.of("id", "emb")).toString())
        .isEqualTo("[[0, null], [1, null], [2, null]]");
    // both changes are one commit on top of the two versions the table had
    assertThat(LanceTestTables.latestVersion(uri)).isEqualTo(3);
  }

  @Test
  void aColumnAddedAfterADropDoesNotReadTheDroppedData() {
    apply(new ColumnChange.Drop(ColumnPath.of("s")));
    apply(
        new ColumnChange.Add(
            ColumnPath.of("c"), nullable("c", new ArrowType.Int(32, true)), ColumnPosition.LAST));

    assertThat(LanceTestTables.readColumns(uri, List.of("id", "c")).toString())
        .isEqualTo("[[0, null], [1, null], [2, null]]");
  }

  @Test
  void refusesWhatLanceCannotDoAndCommitsNothing() {
    long before = LanceTestTables.latestVersion(uri);
    assertThatThrownBy(
            () ->
                apply(
                    new ColumnChange.Add(
                        ColumnPath.of("nn"),
                        new Field("nn", FieldType.notNullable(ArrowType.Utf8.INSTANCE), null),
                        ColumnPosition.LAST)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Cannot ADD nn Utf8 on table " + uri)
        .hasMessageContaining("'nn' is NOT NULL")
        .hasMessageContaining("add it nullable");
    assertThatThrownBy(() -> apply(new ColumnChange.Drop(ColumnPath.of("nope"))))
        .hasMessage(
            "Cannot DROP nope on table "
                + uri
                + ": there is no such column; the table has [id, name, v, s, ts]");
    assertThatThrownBy(() -> apply(new ColumnChange.Rename(ColumnPath.of("id"), "name")))
        .hasMessageContaining("a column named 'name' exists");
    assertThatThrownBy(() -> apply(new ColumnChange.Drop(ColumnPath.of("s", "a"))))
        .hasMessageContaining("drop the ROW column instead");
    assertThatThrownBy(
            () ->
                apply(
                    new ColumnChange.Add(
                        ColumnPath.of("v", "x"),
                        nullable("x", ArrowType.Utf8.INSTANCE),
                        ColumnPosition.LAST)))
        .hasMessageContaining("'v' is not a ROW column");
    assertThatThrownBy(
            () ->
                apply(new ColumnChange.Move(ColumnPath.of("id"), ColumnPosition.after("missing"))))
        .hasMessageContaining("there is no column 'missing' to go after");
    assertThat(LanceTestTables.latestVersion(uri)).isEqualTo(before);
  }

  @Test
  void keepsAndProtectsThePrimaryKey() {
    String keyed = dir.resolve("keyed").toString();
    TestTables.createWithKey(keyed, ROWS, "id");
    uri = keyed;
    apply(
        new ColumnChange.Add(
            ColumnPath.of("email"),
            nullable("email", ArrowType.Utf8.INSTANCE),
            ColumnPosition.LAST));
    try (OpenTable table = OpenTable.latest(TableRef.at(uri, Map.of()))) {
      assertThat(table.dataset().getLanceSchema().getUnenforcedPrimaryKey())
          .extracting(LanceField::getName)
          .containsExactly("id");
    }
    assertThatThrownBy(() -> apply(new ColumnChange.Drop(ColumnPath.of("id"))))
        .hasMessageContaining("Cannot DROP id on table " + uri + ": it is a primary key column");
    assertThatThrownBy(() -> apply(new ColumnChange.DropNotNull(ColumnPath.of("id"))))
        .hasMessageContaining("it is a primary key column");
  }
}
