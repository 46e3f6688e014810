package dev.flinklance.table.catalog;

import dev.flinklance.access.TableRef;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.table.catalog.CatalogDatabase;
import org.apache.flink.table.catalog.ObjectPath;
import org.apache.flink.table.catalog.exceptions.DatabaseNotEmptyException;

/**
 * Where a {@link LanceCatalog} keeps its databases and finds its tables: a Lance Namespace ({@link
 * NamespaceStore}) or a warehouse of the first catalog version ({@link WarehouseStore}). Names
 * reach a store checked ({@link #checkName}); the catalog does everything else (the default
 * database, schemas, options, existence checks, procedures) the same way for both.
 */
interface CatalogBackend {

  /**
   * @throws org.apache.flink.table.api.ValidationException if the name breaks a rule of the catalog
   *     ({@link WarehouseLayout#checkName}) or of the store
   */
  default void checkName(String kind, String name) {
    WarehouseLayout.checkName(kind, name);
  }

  /** The databases the store holds (the catalog adds its default database). */
  List<String> databases();

  Optional<CatalogDatabase> database(String name);

  /**
   * @return false if the database existed already
   */
  boolean createDatabase(String name, CatalogDatabase database);

  /**
   * Removes a database whose tables the catalog dropped.
   *
   * @throws DatabaseNotEmptyException if a table was created in it meanwhile
   */
  void dropDatabase(String catalog, String name) throws DatabaseNotEmptyException;

  /** The names of the tables of an existing database. */
  List<String> tables(String database);

  /**
   * What else the database holds that keeps it from being dropped, for a message: tables another
   * engine made under names the catalog refuses (not listed, so never dropped by the catalog),
   * namespaces inside it. Empty if nothing.
   */
  List<String> unlisted(String database);

  /**
   * Where the table is, if the store knows one by that name (the data itself may be missing: see
   * {@link LanceCatalog#tableExists}).
   */
  Optional<TableRef> table(ObjectPath path);

  /**
   * Reserves the place of a new table, or returns empty if the store knows a table by that name.
   */
  Optional<TableRef> declare(ObjectPath path);

  /**
   * Gives up a place {@link #declare} reserved, after creating the table there failed, unless a
   * table is there now.
   */
  void abandon(ObjectPath path);

  /**
   * Deletes the table and everything it has; a table that is only registered at a place the store
   * did not make for it (another table's, or one written elsewhere) is forgotten, its data kept.
   */
  void dropTable(ObjectPath path, TableRef table);

  /** The options the catalog adds to a table's own for the connector: storage, namespace. */
  Map<String, String> connectorOptions(ObjectPath path);

  /** Where the store is, for messages: the warehouse URI, or the namespace. */
  String describe();
}
