package dev.flinklance.table.catalog;

import dev.flinklance.access.LanceDatasetOptions;
import dev.flinklance.access.OpenTable;
import dev.flinklance.access.TableRef;
import dev.flinklance.namespace.NamespaceConnection;
import dev.flinklance.namespace.NamespaceTable;
import dev.flinklance.secrets.Secrets;
import dev.flinklance.store.StoragePaths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.CatalogDatabase;
import org.apache.flink.table.catalog.CatalogDatabaseImpl;
import org.apache.flink.table.catalog.ObjectPath;
import org.apache.flink.table.catalog.exceptions.CatalogException;
import org.apache.flink.table.catalog.exceptions.DatabaseNotEmptyException;
import org.lance.Dataset;
import org.lance.namespace.LanceNamespace;
import org.lance.namespace.errors.InternalException;
import org.lance.namespace.errors.LanceNamespaceException;
import org.lance.namespace.errors.NamespaceAlreadyExistsException;
import org.lance.namespace.errors.NamespaceNotEmptyException;
import org.lance.namespace.errors.NamespaceNotFoundException;
import org.lance.namespace.errors.TableAlreadyExistsException;
import org.lance.namespace.errors.TableNotFoundException;
import org.lance.namespace.model.CreateNamespaceRequest;
import org.lance.namespace.model.DeclareTableRequest;
import org.lance.namespace.model.DeclareTableResponse;
import org.lance.namespace.model.DeregisterTableRequest;
import org.lance.namespace.model.DescribeNamespaceRequest;
import org.lance.namespace.model.DescribeNamespaceResponse;
import org.lance.namespace.model.DescribeTableResponse;
import org.lance.namespace.model.DropNamespaceRequest;
import org.lance.namespace.model.DropTableRequest;
import org.lance.namespace.model.ListNamespacesRequest;
import org.lance.namespace.model.ListNamespacesResponse;
import org.lance.namespace.model.ListTablesRequest;
import org.lance.namespace.model.ListTablesResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A catalog on a Lance Namespace ({@code 'impl' = 'dir' | 'rest' | <class>}): Flink database {@code
 * db} is the namespace {@code parent + [db]}, table {@code db.t} the table {@code parent + [db,
 * t]}, where {@code parent} is empty unless the catalog is anchored deeper. With {@code
 * single_level_ns} the only database is the catalog's default one, and it is {@code parent} itself
 * (tables at the root of a directory namespace, {@code <root>/t.lance}).
 *
 * <p>Every table is found through the namespace ({@code describeTable} gives its location and
 * vended storage options), so the same tables are lance-spark's, LanceDB's and pylance's. Only the
 * {@link NamespaceConnection} talks to the namespace, the same way for every implementation.
 */
final class NamespaceStore implements CatalogBackend {
  private static final Logger LOG = LoggerFactory.getLogger(NamespaceStore.class);
  static final String COMMENT = "comment";

  /** The directory name lance-core's directory namespace gives a table it makes: hash_id. */
  private static final Pattern MADE_NAME = Pattern.compile("[0-9a-f]{8}_(.+)");

  private final NamespaceConnection connection;
  private final List<String> parent;
  private final boolean singleLevel;
  private final String defaultDatabase;
  private final Map<String, String> storageOptions;

  /**
   * @param storageOptions the catalog's {@code storage.*} options (unprefixed), under what the
   *     namespace vends for a table
   */
  NamespaceStore(
      NamespaceConnection connection,
      List<String> parent,
      boolean singleLevel,
      String defaultDatabase,
      Map<String, String> storageOptions) {
    this.connection = connection;
    this.parent = List.copyOf(parent);
    this.singleLevel = singleLevel;
    this.defaultDatabase = defaultDatabase;
    this.storageOptions = Map.copyOf(storageOptions);
  }

  /**
   * The catalog's rules, and those of lance-core 7.0.0's namespaces (each measured): no {@code $},
   * which the directory namespace and the REST protocol put between the parts of an id ({@code
   * db$t}: a table {@code $x} is taken for another id over REST); no {@code '} (the directory
   * namespace's drop of such a table reports success and leaves its entry); no character outside
   * the Basic Multilingual Plane (an emoji), which the native code cannot take in a table id
   * ("invalid utf-8 sequence"); and over REST no space, which the REST client sends as {@code +}
   * (namespace {@code a b} becomes {@code a+b}).
   */
  @Override
  public void checkName(String kind, String name) {
    WarehouseLayout.checkName(kind, name);
    if (name.contains("$")) {
      throw WarehouseLayout.invalidName(
          kind, name, "must not contain '$' (Lance Namespace ids use it between their parts)");
    }
    if (name.contains("'")) {
      throw WarehouseLayout.invalidName(
          kind,
          name,
          "must not contain a single quote (lance-core's directory namespace cannot drop such a"
              + " table)");
    }
    if (connection.impl().equals("rest") && name.contains(" ")) {
      throw WarehouseLayout.invalidName(
          kind,
          name,
          "must not contain a space in a REST namespace (lance-core's REST client sends it as"
              + " '+')");
    }
    if (name.codePoints().anyMatch(Character::isSupplementaryCodePoint)) {
      throw WarehouseLayout.invalidName(
          kind,
          name,
          "must not contain characters outside the Basic Multilingual Plane, such as emoji"
              + " (lance-core 7.0.0 cannot pass them to a namespace)");
    }
  }

  private volatile boolean reachable;

  /**
   * The namespace; the first call checks, within the connection's timeout, that it answers and that
   * the parent namespace exists.
   */
  private LanceNamespace namespace() {
    LanceNamespace namespace = connection.client();
    if (!reachable) {
      checkReachable(namespace);
      reachable = true;
    }
    return namespace;
  }

  private void checkReachable(LanceNamespace namespace) {
    if (parent.isEmpty()) {
      namespace.listNamespaces(new ListNamespacesRequest().id(List.of()).limit(1));
    } else {
      try {
        namespace.describeNamespace(new DescribeNamespaceRequest().id(parent));
      } catch (NamespaceNotFoundException e) {
        throw new ValidationException(
            String.format("The parent namespace %s does not exist in %s", parent, connection),
            Secrets.scrub(e));
      }
    }
  }

  private List<String> namespaceId(String database) {
    if (singleLevel) {
      return parent;
    }
    List<String> id = new ArrayList<>(parent);
    id.add(database);
    return id;
  }

  private List<String> tableId(ObjectPath path) {
    List<String> id = new ArrayList<>(namespaceId(path.getDatabaseName()));
    id.add(path.getObjectName());
    return id;
  }

  @Override
  public List<String> databases() {
    if (singleLevel) {
      return List.of();
    }
    return valid("database", namespaces(parent));
  }

  private List<String> namespaces(List<String> id) {
    return all(
        token -> {
          ListNamespacesResponse page =
              call(
                  () ->
                      namespace()
                          .listNamespaces(new ListNamespacesRequest().id(id).pageToken(token)));
          return new Page(page.getNamespaces(), page.getPageToken());
        });
  }

  @Override
  public Optional<CatalogDatabase> database(String name) {
    if (singleLevel) {
      return Optional.empty(); // only the default database, which the catalog answers for
    }
    try {
      DescribeNamespaceResponse described =
          call(
              () ->
                  namespace()
                      .describeNamespace(new DescribeNamespaceRequest().id(namespaceId(name))));
      Map<String, String> properties =
          new HashMap<>(described.getProperties() == null ? Map.of() : described.getProperties());
      String comment = properties.remove(COMMENT);
      return Optional.of(new CatalogDatabaseImpl(properties, comment));
    } catch (NamespaceNotFoundException e) {
      return Optional.empty();
    }
  }

  @Override
  public boolean createDatabase(String name, CatalogDatabase database) {
    if (singleLevel) {
      throw new ValidationException(
          String.format(
              "This Lance catalog has 'single_level_ns' = 'true': its only database is '%s'",
              defaultDatabase));
    }
    Map<String, String> properties = new HashMap<>(database.getProperties());
    if (database.getComment() != null && !database.getComment().isEmpty()) {
      properties.put(COMMENT, database.getComment());
    }
    return createNamespace(namespaceId(name), properties);
  }

  private boolean createNamespace(List<String> id, Map<String, String> properties) {
    try {
      call(
          () ->
              namespace()
                  .createNamespace(new CreateNamespaceRequest().id(id).properties(properties)));
      return true;
    } catch (NamespaceAlreadyExistsException e) {
      return false;
    } catch (InternalException e) {
      if (lostRace(e)) {
        return false;
      }
      throw e;
    }
  }

  /**
   * lance-core 7.0.0's directory namespace answers a creation or declaration that lost a race for
   * the name with its manifest's failed merge-insert instead of "already exists" (over REST, every
   * loser measured did).
   */
  private static boolean lostRace(InternalException e) {
    return String.valueOf(e.getMessage()).contains("found matching row");
  }

  @Override
  public void dropDatabase(String catalog, String name) throws DatabaseNotEmptyException {
    try {
      call(() -> namespace().dropNamespace(new DropNamespaceRequest().id(namespaceId(name))));
    } catch (NamespaceNotEmptyException e) {
      throw new DatabaseNotEmptyException(catalog, name, Secrets.scrub(e));
    } catch (NamespaceNotFoundException e) {
      // dropped meanwhile
    }
  }

  @Override
  public List<String> tables(String database) {
    return valid("table", listedTables(database));
  }

  /** Every table the namespace lists in the database, under any name. */
  private List<String> listedTables(String database) {
    List<String> id = namespaceId(database);
    if (!singleLevel && database.equals(defaultDatabase) && database(database).isEmpty()) {
      return List.of(); // created with the default database's first table
    }
    return all(
        token -> {
          ListTablesResponse page =
              call(() -> namespace().listTables(new ListTablesRequest().id(id).pageToken(token)));
          return new Page(page.getTables(), page.getPageToken());
        });
  }

  /**
   * Tables under names the catalog refuses (another engine's), and namespaces inside the database:
   * the namespace drops no namespace that holds either.
   */
  @Override
  public List<String> unlisted(String database) {
    List<String> found = new ArrayList<>();
    for (String table : listedTables(database)) {
      if (!accepted("table", table)) {
        found.add("table '" + table + "'");
      }
    }
    if (!singleLevel) {
      namespaces(namespaceId(database)).forEach(inner -> found.add("namespace '" + inner + "'"));
    }
    return found;
  }

  @Override
  public Optional<TableRef> table(ObjectPath path) {
    List<String> id = tableId(path);
    NamespaceTable table = new NamespaceTable(connection, id);
    DescribeTableResponse described;
    try {
      described = call(table::describe);
    } catch (TableNotFoundException | NamespaceNotFoundException e) {
      return Optional.empty();
    }
    return Optional.of(dataset(described.getLocation(), table));
  }

  private TableRef dataset(String location, NamespaceTable table) {
    if (location == null || location.isBlank()) {
      throw new CatalogException(
          String.format("%s gave no location for %s", connection, table.id()));
    }
    return invalid(
        () ->
            new TableRef(
                location,
                storageOptions,
                LanceDatasetOptions.OBJECT_STORE_CONDITIONAL_PUT_CHECK.defaultValue(),
                table));
  }

  @Override
  public Optional<TableRef> declare(ObjectPath path) {
    if (!singleLevel && path.getDatabaseName().equals(defaultDatabase)) {
      createNamespace(namespaceId(defaultDatabase), Map.of()); // the catalog's default database
    }
    List<String> id = tableId(path);
    DeclareTableResponse declared;
    try {
      declared = call(() -> namespace().declareTable(new DeclareTableRequest().id(id)));
    } catch (TableAlreadyExistsException e) {
      return Optional.empty();
    } catch (InternalException e) {
      if (lostRace(e)) {
        return Optional.empty();
      }
      throw e;
    }
    return Optional.of(dataset(declared.getLocation(), new NamespaceTable(connection, id)));
  }

  /**
   * Gives up the declaration if the place still holds no table (another session may have completed
   * it meanwhile, and then it is that session's table).
   */
  @Override
  public void abandon(ObjectPath path) {
    try {
      Optional<TableRef> declared = table(path);
      if (declared.isPresent() && !holdsTable(declared.get(), declared.get().storageOptions())) {
        if (ownLocation(tableId(path), declared.get().uri())) {
          dropName(path);
        } else {
          deregister(path, declared.get());
        }
      }
    } catch (RuntimeException e) {
      LOG.warn(
          "Could not give up the declaration of table {} in {}",
          path,
          connection,
          Secrets.scrub(e));
    }
  }

  /**
   * Drops a table the namespace made (its data with it); a table another engine registered at a
   * place the namespace did not make for it is only deregistered, its data kept: lance-core 7.0.0's
   * directory namespace deletes the location of any table it drops, registered or not, which for an
   * alias is another table's data.
   *
   * <p>After the namespace dropped a table of its own, the data is deleted if it is still there:
   * lance-core 7.0.0's directory namespace deletes the directory it reserved, which for some names
   * is not where Lance writes the table ({@code ü} on a local root: reserved at {@code %C3%BC},
   * written at {@code ü}; a space on S3: reserved at {@code a b}, written at {@code a%20b}).
   */
  @Override
  public void dropTable(ObjectPath path, TableRef table) {
    if (!ownLocation(tableId(path), table.uri())) {
      deregister(path, table);
      return;
    }
    Map<String, String> options = table.storageOptions(); // the namespace forgets the table next
    dropName(path);
    try {
      if (holdsTable(table, options)) {
        checkDeletable(table.uri());
        Dataset.drop(table.uri(), options);
      }
    } catch (RuntimeException e) {
      throw CatalogFailures.catalog(
          String.format(
              "Table %s was dropped from %s, but its data at %s could not be deleted: %s",
              path, connection, table, e.getMessage()),
          e);
    }
  }

  /** Drops the table in the namespace, which deletes its location. */
  private void dropName(ObjectPath path) {
    try {
      call(() -> namespace().dropTable(new DropTableRequest().id(tableId(path))));
    } catch (TableNotFoundException e) {
      // dropped meanwhile; its data may still be there
    }
  }

  /** The namespace forgets the table; its data stays. */
  private void deregister(ObjectPath path, TableRef table) {
    try {
      call(() -> namespace().deregisterTable(new DeregisterTableRequest().id(tableId(path))));
      LOG.info(
          "Table {} was registered in {} at {}, which the namespace did not make for it: the table"
              + " was deregistered, its data kept",
          path,
          connection,
          table);
    } catch (TableNotFoundException e) {
      // dropped meanwhile
    } catch (LanceNamespaceException e) {
      throw CatalogFailures.catalog(
          String.format(
              "Table %s is registered in %s at %s, which the namespace did not make for it (the"
                  + " data of another table, or written elsewhere): it can only be deregistered,"
                  + " its data kept, and the namespace could not deregister it: %s",
              path, connection, table, e.getMessage()),
          e);
    }
  }

  private static boolean holdsTable(TableRef place, Map<String, String> options) {
    return OpenTable.exists(new TableRef(place.uri(), options));
  }

  /**
   * Whether {@code location} is the place lance-core's directory namespace makes for table {@code
   * id} when it declares or creates it: {@code <root>/<8 hex digits>_<the id joined by $>}, or
   * {@code <root>/<name>.lance} for a table of the root namespace. A table registered anywhere else
   * (at another table's place, an alias; at a table written elsewhere) is not the table's own, and
   * the namespace does not say which tables are registered. Over REST (root unknown) the name alone
   * decides.
   */
  private boolean ownLocation(List<String> id, String location) {
    String decoded = plain(location).replaceAll("/+$", "");
    int slash = decoded.lastIndexOf('/');
    String name = decoded.substring(slash + 1);
    Matcher made = MADE_NAME.matcher(name);
    boolean named =
        made.matches() && made.group(1).equals(String.join("$", id))
            || id.size() == 1 && name.equals(id.get(0) + WarehouseLayout.TABLE_SUFFIX);
    String root = connection.properties().get("root");
    return named
        && (root == null || decoded.substring(0, slash).equals(plain(root).replaceAll("/+$", "")));
  }

  /**
   * Defence in depth before deleting data the namespace left behind: a directory namespace's table
   * lies strictly inside its root; any table lies below its bucket or directory (a bucket, a
   * trailing-slash root or the namespace's own __manifest table is never a table's data).
   */
  private void checkDeletable(String location) {
    String decoded = plain(location);
    String root = connection.properties().get("root");
    String[] segments = decoded.substring(decoded.indexOf("://") + 3).split("/+");
    boolean named =
        segments.length >= 2
            && !segments[segments.length - 1].isEmpty()
            && !segments[segments.length - 1].equals("__manifest");
    boolean inside =
        named
            && (root == null
                || decoded.startsWith(plain(root).replaceAll("/+$", "") + "/")
                    && decoded.length() > plain(root).replaceAll("/+$", "").length() + 1);
    if (!inside) {
      throw new IllegalStateException(
          String.format(
              "Refusing to delete %s: it is not a table strictly inside %s", location, connection));
    }
  }

  /** A location as a percent-decoded URI, a local path as file://. */
  private static String plain(String location) {
    String uri = location.contains("://") ? location : "file://" + location;
    return StoragePaths.percentDecoded(uri);
  }

  @Override
  public Map<String, String> connectorOptions(ObjectPath path) {
    return LanceDatasetOptions.accessOptions(
        storageOptions, new NamespaceTable(connection, tableId(path)));
  }

  @Override
  public String describe() {
    return connection.toString();
  }

  private record Page(java.util.Collection<String> names, String next) {}

  /** Every name of a paged listing. */
  private static List<String> all(Function<String, Page> pages) {
    List<String> names = new ArrayList<>();
    String token = null;
    do {
      Page page = pages.apply(token);
      names.addAll(page.names() == null ? List.of() : page.names());
      token = page.next() == null || page.next().isEmpty() ? null : page.next();
    } while (token != null);
    return names;
  }

  /**
   * The names that the {@link #checkName rules} accept, sorted; a name another engine gave that
   * they refuse is left out (it could not be addressed safely).
   */
  private List<String> valid(String kind, List<String> listed) {
    return listed.stream().filter(name -> accepted(kind, name)).sorted().toList();
  }

  private boolean accepted(String kind, String name) {
    try {
      checkName(kind, name);
      return true;
    } catch (ValidationException e) {
      LOG.debug("Leaving out {} '{}' of {}: {}", kind, name, connection, e.getMessage());
      return false;
    }
  }

  /** The namespace's answers pass (the callers map the ones they expect); the rest is reported. */
  private <T> T call(java.util.function.Supplier<T> call) {
    try {
      return call.get();
    } catch (LanceNamespaceException e) {
      throw e;
    } catch (dev.flinklance.namespace.NamespaceException e) {
      throw CatalogFailures.catalog(e.getMessage(), e);
    }
  }

  private static <T> T invalid(java.util.function.Supplier<T> check) {
    try {
      return check.get();
    } catch (IllegalArgumentException e) {
      throw CatalogFailures.catalog(e.getMessage(), e);
    }
  }
}
