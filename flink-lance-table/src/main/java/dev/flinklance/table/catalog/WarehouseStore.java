package dev.flinklance.table.catalog;

import dev.flinklance.access.LanceDatasetOptions;
import dev.flinklance.access.TableRef;
import dev.flinklance.arrow.Allocators;
import dev.flinklance.errors.LanceDatasetException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.flink.table.catalog.CatalogDatabase;
import org.apache.flink.table.catalog.ObjectPath;
import org.lance.Dataset;
import org.lance.namespace.DirectoryNamespace;
import org.lance.namespace.model.ListTablesRequest;

/**
 * A catalog of the first version, {@code 'warehouse' = ...}: database {@code db} is the directory
 * {@code <warehouse>/db}, table {@code db.t} the Lance table {@code <warehouse>/db/t.lance}, and
 * the databases are rows of {@code <warehouse>/_databases.lance} ({@link DatabaseRegistry}). Kept
 * so that such warehouses go on working as they are; new catalogs use a Lance Namespace.
 */
final class WarehouseStore implements CatalogBackend {
  private final WarehouseLayout layout;
  private final DatabaseRegistry registry;

  WarehouseStore(WarehouseLayout layout) {
    this.layout = layout;
    this.registry = new DatabaseRegistry(layout.registry().dataset());
  }

  @Override
  public List<String> databases() {
    return lance(registry::names);
  }

  @Override
  public Optional<CatalogDatabase> database(String name) {
    return lance(() -> registry.get(name));
  }

  @Override
  public boolean createDatabase(String name, CatalogDatabase database) {
    lance(
        () -> {
          registry.add(name, database);
          return null;
        });
    return true;
  }

  @Override
  public void dropDatabase(String catalog, String name) {
    // Removes what else is left in the directory, then the database itself: a failure half-way
    // leaves the database listed, and dropping it again finishes the job.
    drop(layout.database(name));
    lance(
        () -> {
          registry.remove(name);
          return null;
        });
  }

  @Override
  public List<String> tables(String database) {
    return listed(database).stream()
        .flatMap(listed -> layout.tableName(listed).stream())
        .sorted()
        .toList();
  }

  /**
   * Tables under names the catalog refuses (another engine's): dropping the database deletes its
   * directory with everything in it.
   */
  @Override
  public List<String> unlisted(String database) {
    return listed(database).stream()
        .filter(listed -> layout.tableName(listed).isEmpty())
        .map(listed -> "table '" + listed + "'")
        .toList();
  }

  /** The tables in the database's directory, as Lance's directory listing names them. */
  private List<String> listed(String database) {
    String root = layout.database(database).uri();
    Map<String, String> properties = new HashMap<>();
    properties.put("root", root);
    properties.put("manifest_enabled", "false");
    layout
        .storageOptions()
        .forEach((key, value) -> properties.put(LanceDatasetOptions.STORAGE_PREFIX + key, value));
    BufferAllocator allocator = Allocators.forTables();
    try (DirectoryNamespace directory = new DirectoryNamespace()) {
      directory.initialize(properties, allocator);
      return List.copyOf(directory.listTables(new ListTablesRequest().id(List.of())).getTables());
    } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
      throw CatalogFailures.catalog(
          String.format(
              "Cannot list the tables of database '%s' at %s: %s", database, root, e.getMessage()),
          e);
    } finally {
      Allocators.closeAtEnd(allocator, "the directory listing of database '" + database + "'");
    }
  }

  @Override
  public Optional<TableRef> table(ObjectPath path) {
    return Optional.of(layout.table(path).dataset());
  }

  @Override
  public Optional<TableRef> declare(ObjectPath path) {
    return Optional.of(layout.table(path).dataset());
  }

  @Override
  public void abandon(ObjectPath path) {
    // nothing was reserved: a failed creation commits nothing
  }

  @Override
  public void dropTable(ObjectPath path, TableRef table) {
    drop(layout.table(path));
  }

  @Override
  public Map<String, String> connectorOptions(ObjectPath path) {
    return LanceDatasetOptions.accessOptions(layout.storageOptions(), null);
  }

  @Override
  public String describe() {
    return "warehouse " + layout.warehouse();
  }

  /** Deletes a table or a database directory, once it is certain to be one. */
  private void drop(WarehouseLayout.Location location) {
    layout.checkDeletable(location);
    try {
      Dataset.drop(location.uri(), layout.storageOptions());
    } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
      throw CatalogFailures.catalog(
          String.format("Cannot delete %s: %s", location.uri(), e.getMessage()), e);
    }
  }

  private static <T> T lance(java.util.function.Supplier<T> call) {
    try {
      return call.get();
    } catch (LanceDatasetException e) {
      throw CatalogFailures.catalog(e.getMessage(), e);
    }
  }
}
