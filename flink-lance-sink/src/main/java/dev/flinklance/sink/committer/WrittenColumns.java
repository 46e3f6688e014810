package dev.flinklance.sink.committer;

import dev.flinklance.access.VersionMark;
import dev.flinklance.errors.LanceCalls;
import dev.flinklance.errors.PermanentDatasetException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.lance.Dataset;
import org.lance.FragmentMetadata;
import org.lance.fragment.DataFile;
import org.lance.schema.LanceField;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The check before a commit that the columns the fragments hold are still the table's: Lance
 * commits fragments whose data files hold a column another client dropped (its values are then
 * never read), and a renamed column takes the rows under its new name. Columns the table gained
 * since the fragments were written are fine (their rows read NULL there). A column is known by its
 * Lance field id; lance-core 7.0.0 cannot change a column's type in place, so a retyped column is a
 * dropped one with a new column of the same name.
 */
final class WrittenColumns {
  private static final Logger LOG = LoggerFactory.getLogger(WrittenColumns.class);

  private final String uri;

  /** The table's columns by field id at each run's start version: the names the writers knew. */
  private final Map<VersionMark, Map<Integer, Column>> atRunStart = new HashMap<>();

  WrittenColumns(String uri) {
    this.uri = uri;
  }

  /** A column (or ROW field) as a path of names and its type. */
  private record Column(String path, ArrowType type, boolean nullable) {
    @Override
    public String toString() {
      return "'" + path + "' (" + type + (nullable ? "" : " NOT NULL") + ")";
    }
  }

  /**
   * @param newest the newest version of the table, which the commit lands on or after
   * @throws PermanentDatasetException naming the table, the column and both types, if a column the
   *     fragments hold was dropped, renamed or retyped
   */
  void check(Dataset newest, LanceCommittable committable) {
    TreeSet<Integer> written = new TreeSet<>();
    for (FragmentMetadata fragment : committable.fragments()) {
      for (DataFile file : fragment.getFiles()) {
        for (int id : file.getFields()) {
          if (id >= 0) {
            written.add(id);
          }
        }
      }
    }
    if (written.isEmpty()) {
      return;
    }
    Map<Integer, Column> now = columns(newest.getLanceSchema().fields());
    Map<Integer, Column> before = atRunStart(newest, committable.runStart());
    for (int id : written) {
      Column current = now.get(id);
      Column old = before.get(id);
      if (current == null) {
        throw gone(committable, id, old, now);
      }
      if (old != null && !old.path().equals(current.path())) {
        throw refused(
            committable,
            String.format(
                "column %s that the sink writes was renamed to '%s' in the table",
                old, current.path()));
      }
      if (old != null && !old.type().equals(current.type())) {
        // plain Lance's addColumns may give a column added after a drop the dropped one's id
        throw refused(committable, replaced(old, current));
      }
    }
  }

  private PermanentDatasetException gone(
      LanceCommittable committable, int id, Column old, Map<Integer, Column> now) {
    if (old == null) {
      return refused(
          committable,
          String.format(
              "a column the sink writes (Lance field id %d) was dropped from the table", id));
    }
    Column sameName =
        now.values().stream().filter(c -> c.path().equals(old.path())).findFirst().orElse(null);
    return refused(
        committable,
        sameName == null
            ? String.format("column %s that the sink writes was dropped from the table", old)
            : replaced(old, sameName));
  }

  private static String replaced(Column old, Column now) {
    return String.format(
        "column %s that the sink writes was dropped from the table and added again as %s (%s)",
        old, now, old.type().equals(now.type()) ? "a new, empty column" : "a changed type");
  }

  private PermanentDatasetException refused(LanceCommittable committable, String what) {
    return new PermanentDatasetException(
        uri,
        String.format(
            "%s since the sink's rows were written; nothing of checkpoint %d is committed. Restart"
                + " the job with a row type that matches the table",
            what, committable.checkpointId()),
        null);
  }

  private Map<Integer, Column> atRunStart(Dataset newest, VersionMark runStart) {
    return atRunStart.computeIfAbsent(
        runStart,
        mark -> {
          try (Dataset start =
              LanceCalls.call(
                  uri,
                  "cannot open version " + mark.version(),
                  () -> newest.checkoutVersion(mark.version()))) {
            return columns(start.getLanceSchema().fields());
          } catch (RuntimeException e) {
            // cleaned up since: the columns are then named by their ids
            LOG.info(
                "Cannot read the columns of {} at version {}: {}",
                uri,
                mark.version(),
                e.toString());
            return Map.of();
          }
        });
  }

  private static Map<Integer, Column> columns(List<LanceField> fields) {
    Map<Integer, Column> columns = new HashMap<>();
    collect("", fields, columns);
    return columns;
  }

  private static void collect(String prefix, List<LanceField> fields, Map<Integer, Column> into) {
    for (LanceField field : fields) {
      String path = prefix + field.getName();
      into.put(field.getId(), new Column(path, field.getType(), field.isNullable()));
      collect(path + ".", field.getChildren(), into);
    }
  }
}
