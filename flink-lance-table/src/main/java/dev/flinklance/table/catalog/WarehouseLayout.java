package dev.flinklance.table.catalog;

import dev.flinklance.access.TableRef;
import dev.flinklance.access.Warehouse;
import dev.flinklance.store.StoragePaths;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.ObjectPath;

/**
 * Where a catalog keeps what: database {@code db} is the directory {@code <warehouse>/db}, table
 * {@code db.t} the Lance table {@code <warehouse>/db/t.lance} (the layout LanceDB and Lance's
 * directory namespace use, so they see the same tables), and the list of databases is the Lance
 * table {@code <warehouse>/_databases.lance}.
 *
 * <p>This is the one mapping from catalog names to places, both ways: a {@link Location} can only
 * be made here, from names that pass {@link #checkName}, and {@link #tableName} turns a listed
 * directory entry back into the name that maps to it. The rules refuse every character that Lance
 * or the object store would read as something else than a plain path segment ({@code #} and {@code
 * ?} end a URI's path, {@code %} starts an escape Lance decodes, control characters are dropped),
 * so each name has exactly one place and each place one name, on local paths, {@code file://} and
 * every object store alike.
 */
final class WarehouseLayout {
  static final String TABLE_SUFFIX = Warehouse.TABLE_SUFFIX;
  private static final String REGISTRY = "_databases" + TABLE_SUFFIX;

  /** What a {@link Location} is; only databases and tables may ever be deleted. */
  enum Kind {
    DATABASE,
    TABLE,
    REGISTRY
  }

  /**
   * A place in the warehouse, made only by {@link WarehouseLayout} from checked names. Never build
   * a location by pasting strings: the catalog deletes what a location names.
   */
  static final class Location {
    private final WarehouseLayout layout;
    private final Kind kind;
    private final String uri;
    private final String database;
    private final String table;

    private Location(WarehouseLayout layout, Kind kind, String uri, String database, String table) {
      this.layout = layout;
      this.kind = kind;
      this.uri = uri;
      this.database = database;
      this.table = table;
    }

    Kind kind() {
      return kind;
    }

    String uri() {
      return uri;
    }

    /** The Lance table at this location, with the warehouse's storage options. */
    TableRef dataset() {
      return new TableRef(uri, layout.storageOptions());
    }

    @Override
    public String toString() {
      return uri;
    }
  }

  private final Warehouse warehouse;

  /**
   * @param options the catalog's options: {@code storage.*} are kept for every table
   * @throws ValidationException if the warehouse URI holds characters that end a URI's path
   */
  WarehouseLayout(String warehouse, Map<String, String> options) {
    this.warehouse = invalid(() -> new Warehouse(warehouse, options));
  }

  String warehouse() {
    return warehouse.uri();
  }

  Map<String, String> storageOptions() {
    return warehouse.storageOptions();
  }

  /**
   * @throws ValidationException if the name breaks a {@link #checkName rule}
   */
  Location database(String database) {
    checkName("database", database);
    return new Location(this, Kind.DATABASE, place(database), database, null);
  }

  /**
   * @throws ValidationException if a name breaks a {@link #checkName rule}
   */
  Location table(ObjectPath path) {
    checkName("database", path.getDatabaseName());
    checkName("table", path.getObjectName());
    return new Location(
        this,
        Kind.TABLE,
        place(path.getDatabaseName(), path.getObjectName() + TABLE_SUFFIX),
        path.getDatabaseName(),
        path.getObjectName());
  }

  Location registry() {
    return new Location(this, Kind.REGISTRY, place(REGISTRY), null, null);
  }

  private String place(String... segments) {
    return warehouse.place(segments);
  }

  /**
   * The name of the table that a directory listing of {@code database} shows as {@code listed}
   * (Lance's directory namespace lists a table by its directory name without {@code .lance}, and
   * percent-encodes on object stores), or empty if no catalog name maps to that entry, such as a
   * table another tool created under a name these rules refuse.
   */
  Optional<String> tableName(String listed) {
    // Safe because no valid name holds a '%': any '%' in a listed entry is the store's.
    String name = StoragePaths.percentDecoded(listed);
    try {
      checkName("table", name);
      return Optional.of(name);
    } catch (ValidationException e) {
      return Optional.empty();
    }
  }

  /**
   * Defence in depth before anything is deleted: the location must be a database or a table of this
   * warehouse, strictly inside it, and exactly the place its names map to.
   *
   * @throws IllegalStateException if it is not (a bug: nothing is deleted)
   */
  void checkDeletable(Location location) {
    String expected =
        switch (location.kind) {
          case TABLE -> table(new ObjectPath(location.database, location.table)).uri;
          case DATABASE -> database(location.database).uri;
          case REGISTRY -> null;
        };
    String inside = warehouse.root() + "/";
    if (location.layout != this
        || !location.uri.equals(expected)
        || !location.uri.startsWith(inside)
        || location.uri.length() <= inside.length()
        || location.uri.equals(registry().uri)) {
      throw new IllegalStateException(
          String.format(
              "Refusing to delete %s: it is not a database or table directory strictly inside"
                  + " warehouse %s",
              location.uri, warehouse.root()));
    }
  }

  /**
   * The rules of {@link Warehouse#checkName}.
   *
   * @throws ValidationException naming the name and the rule it breaks
   */
  static void checkName(String kind, String name) {
    invalid(
        () -> {
          Warehouse.checkName(kind, name);
          return name;
        });
  }

  /** The error for a name that breaks a rule: {@code problem} says which ("must not ..."). */
  static ValidationException invalidName(String kind, String name, String problem) {
    return new ValidationException(Warehouse.invalidName(kind, name, problem));
  }

  private static <T> T invalid(Supplier<T> check) {
    try {
      return check.get();
    } catch (IllegalArgumentException e) {
      throw new ValidationException(e.getMessage(), e);
    }
  }
}
