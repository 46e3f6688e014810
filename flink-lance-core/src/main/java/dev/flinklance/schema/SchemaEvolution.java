package dev.flinklance.schema;

import dev.flinklance.access.OpenTable;
import dev.flinklance.commit.CommitStamp;
import dev.flinklance.errors.LanceCalls;
import dev.flinklance.errors.LanceDatasetException;
import dev.flinklance.errors.LanceErrors.Kind;
import dev.flinklance.errors.LanceRetries;
import dev.flinklance.schema.SchemaTree.Node;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.annotation.Internal;
import org.lance.Dataset;
import org.lance.SourcedTransaction;
import org.lance.operation.Project;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Changes a table's columns as one stamped Lance commit that rewrites no data: a {@code Project}
 * transaction whose schema is the table's own with the changes applied, every existing field
 * carrying its Lance field id. What Lance committed is read back and compared with what was asked
 * for; a difference fails naming it.
 *
 * <p>Refused before anything is committed, naming the table and the column: a NOT NULL column added
 * to a table (lance-core 7.0.0 commits it, and every later read of the rows before aborts the
 * reading JVM), dropping or relaxing a primary key column, changing a list's item or a vector
 * column's element, leaving a ROW column or the table without columns. Type changes are not offered
 * at all: lance-core 7.0.0's {@code alterColumns} cast commits a version and leaves the type as it
 * was.
 */
@Internal
public final class SchemaEvolution {
  /** The transaction property naming what a schema commit changed, in SQL words. */
  public static final String STAMP = "flink.schema-change";

  /** The Lance field metadata key of a column's comment (Spark's, which lance-spark keeps). */
  public static final String COMMENT = "comment";

  private static final Logger LOG = LoggerFactory.getLogger(SchemaEvolution.class);
  private static final int CONFLICT_RETRIES = 5;

  private SchemaEvolution() {}

  /**
   * Applies {@code changes} to the newest version of {@code table} in one commit, planned again on
   * the newest version after a conflicting commit by someone else; the table moves to the committed
   * version.
   *
   * @param properties further transaction properties (the writer that made the change)
   * @return the committed version, or the open one if {@code changes} is empty
   * @throws IllegalArgumentException if a change cannot be made, naming the table and column
   * @throws dev.flinklance.errors.TableReplacedException if the table was dropped or replaced
   */
  public static long apply(
      OpenTable table, List<ColumnChange> changes, Map<String, String> properties) {
    if (changes.isEmpty()) {
      return table.dataset().version();
    }
    String description = changes.stream().map(Object::toString).collect(Collectors.joining(", "));
    long version =
        LanceRetries.callAtOnce(
            CONFLICT_RETRIES,
            Set.of(Kind.CONFLICT),
            () -> commit(table, changes, description, properties),
            (failure, retry, delay) -> table.moveToLatest());
    LOG.info("Changed the columns of {} in version {}: {}", table.table(), version, description);
    return version;
  }

  /**
   * The Arrow schema {@code changes} would give the version open in {@code dataset}, checked as
   * {@link #apply} checks them, nothing committed: for a check at planning of what a sink will add.
   *
   * @throws IllegalArgumentException if a change cannot be made, naming the table and column
   */
  public static Schema preview(Dataset dataset, String uri, List<ColumnChange> changes) {
    return planned(dataset, uri, changes).toArrow();
  }

  private static SchemaTree planned(Dataset dataset, String uri, List<ColumnChange> changes) {
    SchemaTree after = SchemaTree.of(dataset.getLanceSchema(), dataset.getSchema());
    changes.forEach(change -> apply(after, change, uri));
    return after;
  }

  private static long commit(
      OpenTable table,
      List<ColumnChange> changes,
      String description,
      Map<String, String> properties) {
    table.moveToLatest();
    Dataset dataset = table.dataset();
    String uri = table.table().uri();
    SchemaTree before = SchemaTree.of(dataset.getLanceSchema(), dataset.getSchema());
    SchemaTree after = planned(dataset, uri, changes);
    Map<String, String> stamp = new HashMap<>(properties);
    stamp.put(STAMP, description);
    stamp.put(CommitStamp.CONNECTOR_VERSION, CommitStamp.connectorVersion());
    Dataset committed =
        LanceCalls.call(
            uri,
            "cannot change the columns (" + description + ")",
            () -> {
              try (SourcedTransaction transaction =
                  dataset
                      .newTransactionBuilder()
                      .readVersion(dataset.version())
                      .operation(Project.builder().schema(after.toArrow()).build())
                      .transactionProperties(stamp)
                      .build()) {
                return transaction.commit();
              }
            });
    table.advanceTo(committed);
    List<String> differences =
        after.differencesFrom(
            SchemaTree.of(committed.getLanceSchema(), committed.getSchema()), before.ids());
    if (!differences.isEmpty()) {
      throw new LanceDatasetException(
          uri,
          String.format(
              "Lance committed version %d for %s, but its columns are not what was asked for: %s",
              committed.version(), description, String.join("; ", differences)),
          null);
    }
    return committed.version();
  }

  private static void apply(SchemaTree tree, ColumnChange change, String uri) {
    List<Node> siblings = siblings(tree, change.column(), uri);
    String name = change.column().name();
    if (change instanceof ColumnChange.Add add) {
      if (find(siblings, name) != null) {
        throw refused(uri, change, "a column of that name exists");
      }
      checkNullable(add.field(), change, uri);
      insert(siblings, Node.unnumbered(add.field()), add.position(), change, uri);
      return;
    }
    Node node = find(siblings, name);
    if (node == null) {
      throw refused(uri, change, "there is no such column; the table has " + names(siblings));
    }
    if (change instanceof ColumnChange.Drop) {
      checkNotKey(node, change, uri);
      if (siblings.size() == 1) {
        throw refused(
            uri,
            change,
            change.column().parent().isEmpty()
                ? "it is the table's only column"
                : "it is the ROW column's only field; drop the ROW column instead");
      }
      siblings.remove(node);
    } else if (change instanceof ColumnChange.Rename rename) {
      if (find(siblings, rename.newName()) != null) {
        throw refused(uri, change, "a column named '" + rename.newName() + "' exists");
      }
      node.name = rename.newName();
    } else if (change instanceof ColumnChange.DropNotNull) {
      checkNotKey(node, change, uri);
      node.nullable = true;
    } else if (change instanceof ColumnChange.Comment comment) {
      if (comment.comment() == null) {
        node.metadata.remove(COMMENT);
      } else {
        node.metadata.put(COMMENT, comment.comment());
      }
    } else if (change instanceof ColumnChange.Move move) {
      siblings.remove(node);
      insert(siblings, node, move.position(), change, uri);
    }
  }

  /** The fields among which {@code column} is (to be), top-level columns or a ROW's fields. */
  private static List<Node> siblings(SchemaTree tree, ColumnPath column, String uri) {
    List<Node> level = tree.columns();
    for (String parent : column.parent()) {
      Node node = find(level, parent);
      if (node == null || !node.isRow()) {
        throw new IllegalArgumentException(
            String.format(
                "Cannot change column %s of table %s: '%s' %s",
                column,
                uri,
                parent,
                node == null ? "is not a column" : "is not a ROW column (" + node.type + ")"));
      }
      level = node.children;
    }
    return level;
  }

  private static void insert(
      List<Node> siblings, Node node, ColumnPosition position, ColumnChange change, String uri) {
    switch (position.where()) {
      case LAST -> siblings.add(node);
      case FIRST -> siblings.add(0, node);
      case AFTER -> {
        Node anchor = find(siblings, position.after());
        if (anchor == null || anchor == node) {
          throw refused(uri, change, "there is no column '" + position.after() + "' to go after");
        }
        siblings.add(siblings.indexOf(anchor) + 1, node);
      }
    }
  }

  /**
   * A new column and its ROW fields must be nullable: the rows the table has hold NULL there. A
   * list's items may be NOT NULL (a vector's elements): an absent list has none.
   */
  private static void checkNullable(Field field, ColumnChange change, String uri) {
    if (!field.isNullable()) {
      throw refused(
          uri,
          change,
          String.format(
              "'%s' is NOT NULL, and the rows the table has would hold NULL there (lance-core"
                  + " 7.0.0 commits such a column and then fails every read of them); add it"
                  + " nullable",
              field.getName()));
    }
    if (field.getType() instanceof ArrowType.Struct) {
      field.getChildren().forEach(child -> checkNullable(child, change, uri));
    }
  }

  private static void checkNotKey(Node node, ColumnChange change, String uri) {
    if (node.key) {
      throw refused(uri, change, "it is a primary key column");
    }
  }

  private static Node find(List<Node> nodes, String name) {
    return nodes.stream().filter(node -> node.name.equals(name)).findFirst().orElse(null);
  }

  private static List<String> names(List<Node> nodes) {
    return nodes.stream().map(node -> node.name).toList();
  }

  private static IllegalArgumentException refused(String uri, ColumnChange change, String why) {
    return new IllegalArgumentException(
        String.format("Cannot %s on table %s: %s", change, uri, why));
  }
}
