package dev.flinklance.schema;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.schema.LanceField;
import org.lance.schema.LanceSchema;

/**
 * A table's columns with their Lance field ids, changed in place and written back as the Arrow
 * schema of a {@code Project} transaction. Lance matches such a schema to the table's fields by the
 * {@value #FIELD_ID} metadata of each field, and by name where it is missing: a renamed field
 * without its id would be a new, empty column, its data lost from the new version on.
 */
final class SchemaTree {
  /** The field metadata lance-core 7.0.0 reads a field's id from, and drops, in a Project. */
  static final String FIELD_ID = "lance:field_id";

  /** One field: a column, a ROW column's field, or a list's item. */
  static final class Node {
    String name;
    final int id; // -1 for a field this change adds
    boolean nullable;
    final ArrowType type;
    final DictionaryEncoding dictionary;
    final Map<String, String> metadata;
    final List<Node> children;
    final boolean key; // Lance's unenforced primary key

    Node(
        String name,
        int id,
        boolean nullable,
        ArrowType type,
        DictionaryEncoding dictionary,
        Map<String, String> metadata,
        List<Node> children,
        boolean key) {
      this.name = name;
      this.id = id;
      this.nullable = nullable;
      this.type = type;
      this.dictionary = dictionary;
      this.metadata = new HashMap<>(metadata);
      this.children = children;
      this.key = key;
    }

    /**
     * A field as Lance describes it, with the Arrow field of the same column for what Lance leaves
     * out: a list's item, which Lance folds into the list's logical type.
     */
    static Node of(LanceField field, Field arrow) {
      List<Node> children = new ArrayList<>();
      if (field.getChildren().isEmpty()) {
        arrow.getChildren().forEach(child -> children.add(unnumbered(child)));
      } else {
        for (int i = 0; i < field.getChildren().size(); i++) {
          children.add(of(field.getChildren().get(i), arrow.getChildren().get(i)));
        }
      }
      // the type as Arrow has it: LanceField's is parsed back from Lance's logical type, which
      // loses some (a timestamp without a zone comes back with the zone "-")
      return new Node(
          field.getName(),
          field.getId(),
          field.isNullable(),
          arrow.getType(),
          arrow.getDictionary(),
          field.getMetadata(),
          children,
          field.isUnenforcedPrimaryKey());
    }

    /** A field without a Lance id: one the change adds (Lance gives it one), or a list's item. */
    static Node unnumbered(Field field) {
      List<Node> children = new ArrayList<>();
      field.getChildren().forEach(child -> children.add(unnumbered(child)));
      Map<String, String> metadata =
          field.getMetadata() == null ? Map.of() : new HashMap<>(field.getMetadata());
      return new Node(
          field.getName(),
          -1,
          field.isNullable(),
          field.getType(),
          field.getDictionary(),
          metadata,
          children,
          false);
    }

    boolean isRow() {
      return type instanceof ArrowType.Struct;
    }

    Field toArrow() {
      Map<String, String> withId = new HashMap<>(metadata);
      if (id >= 0) {
        withId.put(FIELD_ID, Integer.toString(id));
      }
      List<Field> fields = new ArrayList<>();
      children.forEach(child -> fields.add(child.toArrow()));
      return new Field(name, new FieldType(nullable, type, dictionary, withId), fields);
    }

    /** What differs between this expected field and the committed one; empty if nothing. */
    void compare(Node committed, String path, Set<Integer> oldIds, List<String> differences) {
      if (!name.equals(committed.name)) {
        differences.add(path + ": named '" + committed.name + "'");
      }
      if (id >= 0 ? id != committed.id : committed.id >= 0 && oldIds.contains(committed.id)) {
        differences.add(path + ": field id " + committed.id + " instead of " + idText());
      }
      // a list's item has no Lance field of its own: Lance keeps no NOT NULL for it
      boolean listItem = id < 0 && committed.id < 0;
      if (nullable != committed.nullable && !listItem) {
        differences.add(path + ": " + (committed.nullable ? "nullable" : "NOT NULL"));
      }
      if (!type.equals(committed.type)) {
        differences.add(path + ": of type " + committed.type + " instead of " + type);
      }
      if (key != committed.key) {
        differences.add(path + (committed.key ? ": a" : ": not a") + " primary key column");
      }
      if (!metadata.equals(committed.metadata)) {
        differences.add(path + ": metadata " + committed.metadata + " instead of " + metadata);
      }
      compareChildren(children, committed.children, path, oldIds, differences);
    }

    private String idText() {
      return id >= 0 ? Integer.toString(id) : "a new one";
    }
  }

  private final List<Node> columns;
  private final Map<String, String> metadata;

  private SchemaTree(List<Node> columns, Map<String, String> metadata) {
    this.columns = columns;
    this.metadata = metadata;
  }

  /** A version's columns: {@code getLanceSchema()} and {@code getSchema()} of one dataset. */
  static SchemaTree of(LanceSchema schema, Schema arrow) {
    List<Node> columns = new ArrayList<>();
    for (int i = 0; i < schema.fields().size(); i++) {
      columns.add(Node.of(schema.fields().get(i), arrow.getFields().get(i)));
    }
    return new SchemaTree(columns, schema.metadata());
  }

  /** The top-level columns. */
  List<Node> columns() {
    return columns;
  }

  Schema toArrow() {
    List<Field> fields = new ArrayList<>();
    columns.forEach(column -> fields.add(column.toArrow()));
    return new Schema(fields, metadata);
  }

  /**
   * Whether the field ids are those a fragment write would give the fields by their position (in
   * order, depth first, from 0): true of a table no column was dropped from or moved in.
   */
  boolean idsInOrder() {
    int[] next = {0};
    return inOrder(columns, next);
  }

  private static boolean inOrder(List<Node> nodes, int[] next) {
    for (Node node : nodes) {
      if (node.id >= 0 && node.id != next[0]++) {
        return false;
      }
      if (!inOrder(node.children, next)) {
        return false;
      }
    }
    return true;
  }

  /** Every field id in the tree. */
  Set<Integer> ids() {
    Set<Integer> ids = new HashSet<>();
    collectIds(columns, ids);
    return ids;
  }

  private static void collectIds(List<Node> nodes, Set<Integer> ids) {
    for (Node node : nodes) {
      if (node.id >= 0) {
        ids.add(node.id);
      }
      collectIds(node.children, ids);
    }
  }

  /**
   * How the committed schema differs from this expected one: names, ids (kept for every existing
   * field, new and unused for every added one), nullability, types, metadata, order.
   */
  List<String> differencesFrom(SchemaTree committed, Set<Integer> oldIds) {
    List<String> differences = new ArrayList<>();
    compareChildren(columns, committed.columns, "", oldIds, differences);
    return differences;
  }

  private static void compareChildren(
      List<Node> expected,
      List<Node> committed,
      String parent,
      Set<Integer> oldIds,
      List<String> differences) {
    if (expected.size() != committed.size()) {
      differences.add(
          (parent.isEmpty() ? "the table" : parent)
              + ": "
              + names(committed)
              + " instead of "
              + names(expected));
      return;
    }
    for (int i = 0; i < expected.size(); i++) {
      Node node = expected.get(i);
      String path = parent.isEmpty() ? node.name : parent + "." + node.name;
      node.compare(committed.get(i), path, oldIds, differences);
    }
  }

  private static List<String> names(List<Node> nodes) {
    return nodes.stream().map(node -> node.name).toList();
  }
}
