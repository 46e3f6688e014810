package dev.flinklance.table.catalog;

import dev.flinklance.access.LanceDatasetOptions;
import dev.flinklance.access.OpenTable;
import dev.flinklance.access.TableLayout;
import dev.flinklance.access.TableRef;
import dev.flinklance.arrow.read.LanceReadSchema;
import dev.flinklance.commit.VersionsBy;
import dev.flinklance.errors.LanceCalls;
import dev.flinklance.errors.LanceDatasetException;
import dev.flinklance.key.PrimaryKey;
import dev.flinklance.namespace.NamespaceException;
import dev.flinklance.schema.ColumnChange;
import dev.flinklance.schema.SchemaEvolution;
import dev.flinklance.source.LanceSourceOptions;
import dev.flinklance.table.LanceDynamicTableFactory;
import dev.flinklance.table.catalog.procedure.LanceProcedures;
import dev.flinklance.table.catalog.procedure.TableResolver;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.AbstractCatalog;
import org.apache.flink.table.catalog.CatalogBaseTable;
import org.apache.flink.table.catalog.CatalogDatabase;
import org.apache.flink.table.catalog.CatalogDatabaseImpl;
import org.apache.flink.table.catalog.CatalogFunction;
import org.apache.flink.table.catalog.CatalogPartition;
import org.apache.flink.table.catalog.CatalogPartitionSpec;
import org.apache.flink.table.catalog.CatalogTable;
import org.apache.flink.table.catalog.ObjectPath;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.catalog.TableChange;
import org.apache.flink.table.catalog.exceptions.CatalogException;
import org.apache.flink.table.catalog.exceptions.DatabaseAlreadyExistException;
import org.apache.flink.table.catalog.exceptions.DatabaseNotEmptyException;
import org.apache.flink.table.catalog.exceptions.DatabaseNotExistException;
import org.apache.flink.table.catalog.exceptions.FunctionNotExistException;
import org.apache.flink.table.catalog.exceptions.PartitionNotExistException;
import org.apache.flink.table.catalog.exceptions.ProcedureNotExistException;
import org.apache.flink.table.catalog.exceptions.TableAlreadyExistException;
import org.apache.flink.table.catalog.exceptions.TableNotExistException;
import org.apache.flink.table.catalog.exceptions.TableNotPartitionedException;
import org.apache.flink.table.catalog.stats.CatalogColumnStatistics;
import org.apache.flink.table.catalog.stats.CatalogTableStatistics;
import org.apache.flink.table.expressions.Expression;
import org.apache.flink.table.factories.Factory;
import org.apache.flink.table.procedures.Procedure;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.utils.TypeConversions;
import org.lance.Dataset;
import org.lance.namespace.errors.LanceNamespaceException;

/**
 * {@code CREATE CATALOG lake WITH ('type' = 'lance', 'impl' = 'dir', 'root' = ...)}: databases are
 * namespaces of a Lance Namespace (or, for a catalog of the first version, directories of a
 * warehouse: see {@link CatalogBackend}), tables are the Lance tables in them. A table's schema is
 * read from the table itself; the options given at CREATE TABLE live in the table's config, so
 * every session (and every Lance reader) sees them. State lives only in the namespace and the
 * tables: two sessions that create the same catalog see the same databases, tables and options.
 */
@Internal
public class LanceCatalog extends AbstractCatalog {
  private final CatalogBackend store;

  LanceCatalog(String name, String defaultDatabase, CatalogBackend store) {
    super(name, defaultDatabase);
    this.store = store;
    store.checkName("database", defaultDatabase);
  }

  @Override
  public void open() {
    // No call to the namespace here: Flink's error for a failed CREATE CATALOG lists the catalog's
    // options, header tokens included. The first statement that uses the catalog fails instead.
  }

  @Override
  public void close() {
    // every call opens what it reads and closes it
  }

  /**
   * Tables of this catalog are read and written by the 'lance' connector, with the catalog's
   * storage options and the namespace that serves them.
   */
  @Override
  public Optional<Factory> getFactory() {
    return Optional.of(
        new LanceDynamicTableFactory(
            identifier -> store.connectorOptions(identifier.toObjectPath())));
  }

  // ---- databases

  @Override
  public List<String> listDatabases() {
    Set<String> names = new HashSet<>(catalog(store::databases));
    names.add(getDefaultDatabase());
    return names.stream().sorted().toList();
  }

  @Override
  public CatalogDatabase getDatabase(String name) throws DatabaseNotExistException {
    store.checkName("database", name);
    Optional<CatalogDatabase> stored = catalog(() -> store.database(name));
    if (stored.isEmpty() && name.equals(getDefaultDatabase())) {
      return new CatalogDatabaseImpl(Map.of(), "The Lance catalog's default database");
    }
    return stored.orElseThrow(() -> new DatabaseNotExistException(getName(), name));
  }

  @Override
  public boolean databaseExists(String name) {
    store.checkName("database", name);
    return name.equals(getDefaultDatabase()) || catalog(() -> store.database(name)).isPresent();
  }

  @Override
  public void createDatabase(String name, CatalogDatabase database, boolean ignoreIfExists)
      throws DatabaseAlreadyExistException {
    store.checkName("database", name);
    if (name.equals(LanceProcedures.DATABASE)) {
      throw new ValidationException(
          "'" + LanceProcedures.DATABASE + "' is the Lance catalog's database of procedures");
    }
    if (databaseExists(name) || !catalog(() -> store.createDatabase(name, database))) {
      if (ignoreIfExists) {
        return;
      }
      throw new DatabaseAlreadyExistException(getName(), name);
    }
  }

  @Override
  public void dropDatabase(String name, boolean ignoreIfNotExists, boolean cascade)
      throws DatabaseNotExistException, DatabaseNotEmptyException {
    store.checkName("database", name);
    if (name.equals(getDefaultDatabase())) {
      throw new ValidationException(
          "The default database '"
              + name
              + "' of Lance catalog "
              + getName()
              + " cannot be dropped");
    }
    if (!databaseExists(name)) {
      if (ignoreIfNotExists) {
        return;
      }
      throw new DatabaseNotExistException(getName(), name);
    }
    List<String> tables = listTables(name);
    if (!tables.isEmpty() && !cascade) {
      throw new DatabaseNotEmptyException(getName(), name);
    }
    // Everything is checked before the first table goes: what the catalog does not list would
    // keep a namespace (or be deleted with a warehouse's directory), and every table must resolve
    List<String> unlisted = catalog(() -> store.unlisted(name));
    if (!unlisted.isEmpty()) {
      throw new DatabaseNotEmptyException(
          getName(),
          name,
          new ValidationException(
              String.format(
                  "Database %s holds %s, which the catalog does not list (another engine's; drop"
                      + " it there). Nothing was dropped.",
                  name, String.join(", ", unlisted))));
    }
    Map<ObjectPath, TableRef> found = new LinkedHashMap<>();
    for (String table : tables) {
      ObjectPath path = new ObjectPath(name, table);
      catalog(() -> store.table(path)).ifPresent(place -> found.put(path, place));
    }
    // Lance's directory namespace drops no namespace that still has tables, cascade or not
    found.forEach(this::drop);
    if (!listTables(name).isEmpty()) {
      throw new DatabaseNotEmptyException(getName(), name); // a table created meanwhile
    }
    store.dropDatabase(getName(), name);
  }

  @Override
  public void alterDatabase(String name, CatalogDatabase newDatabase, boolean ignoreIfNotExists) {
    throw new CatalogException("The Lance catalog cannot alter databases");
  }

  // ---- tables

  @Override
  public List<String> listTables(String database) throws DatabaseNotExistException {
    if (!databaseExists(database)) {
      throw new DatabaseNotExistException(getName(), database);
    }
    return catalog(() -> store.tables(database));
  }

  @Override
  public List<String> listViews(String database) {
    return List.of();
  }

  @Override
  public CatalogBaseTable getTable(ObjectPath path) throws TableNotExistException {
    TableRef table = resolve(path).orElseThrow(() -> new TableNotExistException(getName(), path));
    try (OpenTable open = openExisting(path, table)) {
      Dataset dataset = open.dataset();
      return describe(table, dataset, dataset.getConfig());
    } catch (TableNotExistException | CatalogException e) {
      throw e;
    } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
      throw CatalogFailures.catalog(
          String.format("Cannot read table %s at %s: %s", path, table, e.getMessage()), e);
    }
  }

  /** A version's columns (their comments, the primary key) with the options in {@code config}. */
  private static CatalogTable describe(TableRef table, Dataset version, Map<String, String> config)
      throws Exception {
    RowType rowType = LanceReadSchema.of(version).rowType();
    Map<String, String> options =
        TableOptions.forColumns(TableOptions.fromConfig(config), rowType.getFieldNames());
    options.put(LanceDatasetOptions.PATH.key(), table.uri());
    Schema lanceSchema = version.getSchema();
    org.apache.flink.table.api.Schema.Builder columns =
        org.apache.flink.table.api.Schema.newBuilder();
    for (RowType.RowField field : rowType.getFields()) {
      columns.column(field.getName(), TypeConversions.fromLogicalToDataType(field.getType()));
      ColumnComments.of(lanceSchema, field.getName()).ifPresent(columns::withComment);
    }
    PrimaryKey.declaredBy(lanceSchema).ifPresent(columns::primaryKey);
    return CatalogTable.newBuilder()
        .schema(columns.build())
        .comment(config.get(TableOptions.COMMENT_KEY))
        .options(options)
        .build();
  }

  /**
   * The table as it was at {@code timestamp} ({@code FOR SYSTEM_TIME AS OF TIMESTAMP '...'}): the
   * newest version committed at or before it, read as {@code scan.version} does.
   */
  @Override
  public CatalogBaseTable getTable(ObjectPath path, long timestamp) throws TableNotExistException {
    TableRef table = resolve(path).orElseThrow(() -> new TableNotExistException(getName(), path));
    try (OpenTable open = openExisting(path, table)) {
      Map<String, String> config = open.dataset().getConfig();
      VersionsBy found = VersionsBy.committedBy(open.dataset(), timestamp);
      if (found.version() == null) {
        throw new CatalogException(
            String.format(
                "Table %s has no version committed at or before %s (its oldest kept version, %d,"
                    + " was committed at %s)",
                path,
                Instant.ofEpochMilli(timestamp),
                found.oldest() == null ? 0 : found.oldest().version(),
                found.oldest() == null
                    ? "-"
                    : Instant.EPOCH.plusNanos(found.oldest().epochNanos())));
      }
      // the columns of that version (a column renamed or dropped since reads as it was then),
      // the options the table has now
      open.moveTo(found.version().version());
      CatalogTable then = describe(table, open.dataset(), config);
      Map<String, String> options = new HashMap<>(then.getOptions());
      options.put(LanceSourceOptions.SCAN_VERSION.key(), Long.toString(found.version().version()));
      return then.copy(options);
    } catch (TableNotExistException | CatalogException e) {
      throw e;
    } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
      throw CatalogFailures.catalog(
          String.format(
              "Cannot read the versions of table %s at %s: %s", path, table, e.getMessage()),
          e);
    }
  }

  @Override
  public boolean tableExists(ObjectPath path) {
    return resolve(path).filter(this::hasData).isPresent();
  }

  /** The table's place, if its database exists and the store knows the table. */
  private Optional<TableRef> resolve(ObjectPath path) {
    store.checkName("database", path.getDatabaseName());
    store.checkName("table", path.getObjectName());
    if (!databaseExists(path.getDatabaseName())) {
      return Optional.empty();
    }
    return catalog(() -> store.table(path));
  }

  /** Whether a Lance table is at the place (a namespace may know a table only declared). */
  private boolean hasData(TableRef table) {
    return catalog(() -> OpenTable.exists(table));
  }

  @Override
  public void dropTable(ObjectPath path, boolean ignoreIfNotExists) throws TableNotExistException {
    Optional<TableRef> table = resolve(path);
    if (table.isEmpty() || !hasData(table.get())) {
      if (ignoreIfNotExists) {
        return;
      }
      throw new TableNotExistException(getName(), path);
    }
    drop(path, table.get());
  }

  @Override
  public void renameTable(ObjectPath path, String newName, boolean ignoreIfNotExists) {
    throw new CatalogException(
        "The Lance catalog cannot rename tables (object stores have no rename); copy the table"
            + " with INSERT INTO ... SELECT and drop the old one");
  }

  @Override
  public void createTable(ObjectPath path, CatalogBaseTable table, boolean ignoreIfExists)
      throws TableAlreadyExistException, DatabaseNotExistException {
    store.checkName("table", path.getObjectName());
    if (!databaseExists(path.getDatabaseName())) {
      throw new DatabaseNotExistException(getName(), path.getDatabaseName());
    }
    ResolvedCatalogTable resolved = checkCreatable(table);
    Map<String, String> options = TableOptions.forCreate(resolved.getOptions());
    RowType declaredType =
        (RowType) resolved.getResolvedSchema().toPhysicalRowDataType().getLogicalType();
    TableLayout layout = invalid(() -> TableLayout.from(Configuration.fromMap(options)));
    // A primary key is Lance's own (unenforced) one, so that every session and engine sees it;
    // its columns are NOT NULL, as Lance wants them
    Optional<PrimaryKey> key =
        resolved
            .getResolvedSchema()
            .getPrimaryKey()
            .map(
                constraint ->
                    invalid(
                        () ->
                            PrimaryKey.of(
                                declaredType, constraint.getColumns(), path.getFullName())));
    RowType rowType = key.map(k -> k.withKeysNotNull(declaredType)).orElse(declaredType);
    Schema columns =
        ColumnComments.store(
            invalid(() -> layout.schemaFor(rowType)), resolved.getResolvedSchema().getColumns());
    Schema schema = key.map(k -> k.declareIn(columns)).orElse(columns);
    if (tableExists(path)) {
      if (ignoreIfExists) {
        return;
      }
      throw new TableAlreadyExistException(getName(), path);
    }
    Optional<TableRef> declared = catalog(() -> store.declare(path));
    // A name the store knows without a table behind it (a creation that died half-way, another
    // engine's declaration) gets its table now, where the store put it.
    TableRef lance =
        declared
            .or(() -> catalog(() -> store.table(path)).filter(found -> !hasData(found)))
            .orElse(null);
    if (lance == null) {
      if (ignoreIfExists) {
        return;
      }
      throw new TableAlreadyExistException(getName(), path); // created concurrently
    }
    Map<String, String> tableConfig = TableOptions.toConfig(options, resolved.getComment());
    Optional<OpenTable> created;
    try {
      created =
          catalog(
              () ->
                  OpenTable.createIfAbsent(
                      lance,
                      schema,
                      layout.stableRowIds(),
                      layout.storageVersionFor(schema),
                      tableConfig));
      created.ifPresent(OpenTable::close);
    } catch (RuntimeException e) {
      if (declared.isPresent()) {
        store.abandon(path);
      }
      throw e;
    }
    if (created.isEmpty() && !ignoreIfExists) {
      throw new TableAlreadyExistException(getName(), path); // created concurrently
    }
  }

  /** Lance tables hold physical columns: a schema that needs more is refused, not half kept. */
  private static ResolvedCatalogTable checkCreatable(CatalogBaseTable table) {
    if (!(table instanceof ResolvedCatalogTable resolved)) {
      throw new ValidationException("The Lance catalog stores tables only, not views");
    }
    ResolvedSchema schema = resolved.getResolvedSchema();
    if (resolved.isPartitioned()) {
      throw new ValidationException("Lance tables are not partitioned; remove PARTITIONED BY");
    }
    if (!schema.getWatermarkSpecs().isEmpty()
        || schema.getColumns().stream().anyMatch(column -> !column.isPhysical())) {
      throw new ValidationException(
          "Tables in the Lance catalog have physical columns only (no computed or metadata"
              + " columns or watermarks). Declare those on a temporary table or view over it,"
              + " e.g. CREATE TEMPORARY TABLE ... LIKE.");
    }
    return resolved;
  }

  @Override
  public void alterTable(ObjectPath path, CatalogBaseTable newTable, boolean ignoreIfNotExists) {
    throw new CatalogException(
        "The Lance catalog alters a table by its changes (ALTER TABLE ... ADD / DROP / RENAME /"
            + " MODIFY / SET / RESET)");
  }

  /**
   * ALTER TABLE: column changes as one Lance commit that rewrites no data ({@link
   * SchemaEvolution}), then {@code SET ('key' = 'value')} and {@code RESET ('key')} of the options
   * in the table's config. Everything is checked before the first commit.
   */
  @Override
  public void alterTable(
      ObjectPath path,
      CatalogBaseTable newTable,
      List<TableChange> changes,
      boolean ignoreIfNotExists)
      throws TableNotExistException {
    if (!tableExists(path)) {
      if (ignoreIfNotExists) {
        return;
      }
      throw new TableNotExistException(getName(), path);
    }
    Map<String, String> set = new HashMap<>();
    Set<String> reset = new HashSet<>();
    List<TableChange> columnChanges = new ArrayList<>();
    for (TableChange change : changes) {
      if (change instanceof TableChange.SetOption option) {
        set.put(option.getKey(), option.getValue());
      } else if (change instanceof TableChange.ResetOption option) {
        reset.add(option.getKey());
      } else {
        columnChanges.add(change);
      }
    }
    TableRef table = resolve(path).orElseThrow(() -> new TableNotExistException(getName(), path));
    try (OpenTable open = OpenTable.latest(table)) {
      Dataset dataset = open.dataset();
      Map<String, String> before = TableOptions.fromConfig(dataset.getConfig());
      Map<String, String> after = new HashMap<>(before);
      after.putAll(set);
      after.keySet().removeAll(reset);
      List<String> columns = dataset.getSchema().getFields().stream().map(Field::getName).toList();
      Stream.concat(set.keySet().stream(), reset.stream())
          .forEach(key -> checkChangeable(path, key, before, after, columns));
      List<ColumnChange> planned =
          columnChanges.isEmpty() ? List.of() : planColumns(path, newTable, columnChanges, after);
      invalid(() -> SchemaEvolution.apply(open, planned, Map.of()));
      if (!set.isEmpty()) {
        open.dataset().updateConfig(prefixed(set));
      }
      if (!reset.isEmpty()) {
        open.dataset()
            .deleteConfigKeys(
                reset.stream()
                    .map(key -> TableOptions.CONFIG_PREFIX + key)
                    .collect(Collectors.toSet()));
      }
    } catch (ValidationException | CatalogException e) {
      throw e;
    } catch (LanceDatasetException e) {
      throw CatalogFailures.catalog(e.getMessage(), e);
    } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
      throw CatalogFailures.catalog(
          String.format("Cannot alter table %s at %s: %s", path, table, e.getMessage()), e);
    }
  }

  /** The Lance column changes of an ALTER TABLE, the new columns typed as CREATE TABLE types. */
  private static List<ColumnChange> planColumns(
      ObjectPath path,
      CatalogBaseTable newTable,
      List<TableChange> changes,
      Map<String, String> options) {
    ResolvedCatalogTable resolved = checkCreatable(newTable);
    RowType rowType =
        (RowType) resolved.getResolvedSchema().toPhysicalRowDataType().getLogicalType();
    Map<String, String> layoutOptions = TableOptions.forColumns(options, rowType.getFieldNames());
    TableLayout layout = invalid(() -> TableLayout.from(Configuration.fromMap(layoutOptions)));
    return invalid(() -> AlterColumns.of(path, changes, rowType, layout));
  }

  private static Map<String, String> prefixed(Map<String, String> options) {
    Map<String, String> config = new HashMap<>();
    options.forEach((key, value) -> config.put(TableOptions.CONFIG_PREFIX + key, value));
    return config;
  }

  /**
   * @param before the table's options
   * @param after its options after the ALTER
   * @param columns the table's columns
   */
  private static void checkChangeable(
      ObjectPath path,
      String key,
      Map<String, String> before,
      Map<String, String> after,
      List<String> columns) {
    TableOptions.checkKey(key);
    if (key.equals(LanceDatasetOptions.VECTOR_COLUMNS.key())) {
      TableOptions.checkVectorColumns(path.getFullName(), before, after, columns);
    } else if (TableOptions.CREATION_ONLY.contains(key)) {
      throw new ValidationException(
          String.format(
              "Option '%s' shapes a Lance table when it is created and cannot be changed"
                  + " afterwards",
              key));
    }
  }

  // ---- procedures (database 'sys')

  @Override
  public List<String> listProcedures(String database) throws DatabaseNotExistException {
    if (database.equals(LanceProcedures.DATABASE)) {
      return LanceProcedures.names();
    }
    if (!databaseExists(database)) {
      throw new DatabaseNotExistException(getName(), database);
    }
    return List.of();
  }

  @Override
  public Procedure getProcedure(ObjectPath path) throws ProcedureNotExistException {
    if (!path.getDatabaseName().equals(LanceProcedures.DATABASE)) {
      throw new ProcedureNotExistException(getName(), path);
    }
    return LanceProcedures.get(path.getObjectName(), new ProcedureTables())
        .orElseThrow(() -> new ProcedureNotExistException(getName(), path));
  }

  /** The tables procedures name (see {@link TableArgument}) and the options kept for them. */
  private final class ProcedureTables implements TableResolver {

    @Override
    public TableRef table(String name) {
      ObjectPath path = TableArgument.parse(name, getDefaultDatabase());
      return resolve(path)
          .filter(LanceCatalog.this::hasData)
          .orElseThrow(
              () ->
                  new ValidationException(
                      String.format(
                          "Table %s does not exist in Lance catalog %s",
                          TableArgument.format(path), getName())));
    }

    @Override
    public Map<String, String> storedOptions(TableRef table) {
      return LanceCalls.call(
          table.uri(),
          "cannot read the table's options",
          () -> {
            try (OpenTable latest = OpenTable.latest(table)) {
              return TableOptions.fromConfig(latest.dataset().getConfig());
            }
          });
    }
  }

  // ---- helpers

  private OpenTable openExisting(ObjectPath path, TableRef table) throws TableNotExistException {
    return catalog(() -> OpenTable.latestIfExists(table))
        .orElseThrow(() -> new TableNotExistException(getName(), path));
  }

  private void drop(ObjectPath path, TableRef table) {
    catalog(
        () -> {
          store.dropTable(path, table);
          return null;
        });
  }

  /**
   * Lance and namespace failures become CatalogExceptions naming the table or the namespace, which
   * Flink reports as they are.
   */
  private <T> T catalog(Supplier<T> call) {
    try {
      return call.get();
    } catch (LanceDatasetException | NamespaceException e) {
      throw CatalogFailures.catalog(e.getMessage(), e);
    } catch (LanceNamespaceException e) {
      throw CatalogFailures.catalog(
          String.format("%s answered: %s", store.describe(), e.getMessage()), e);
    }
  }

  private static <T> T invalid(Supplier<T> check) {
    try {
      return check.get();
    } catch (IllegalArgumentException e) {
      throw CatalogFailures.invalid(e);
    }
  }

  // ---- what Lance tables do not have

  @Override
  public List<CatalogPartitionSpec> listPartitions(ObjectPath path)
      throws TableNotPartitionedException {
    throw new TableNotPartitionedException(getName(), path);
  }

  @Override
  public List<CatalogPartitionSpec> listPartitions(ObjectPath path, CatalogPartitionSpec spec)
      throws TableNotPartitionedException {
    throw new TableNotPartitionedException(getName(), path);
  }

  @Override
  public List<CatalogPartitionSpec> listPartitionsByFilter(
      ObjectPath path, List<Expression> filters) throws TableNotPartitionedException {
    throw new TableNotPartitionedException(getName(), path);
  }

  @Override
  public CatalogPartition getPartition(ObjectPath path, CatalogPartitionSpec spec)
      throws PartitionNotExistException {
    throw new PartitionNotExistException(getName(), path, spec);
  }

  @Override
  public boolean partitionExists(ObjectPath path, CatalogPartitionSpec spec) {
    return false;
  }

  @Override
  public void createPartition(
      ObjectPath path, CatalogPartitionSpec spec, CatalogPartition partition, boolean ignore) {
    throw new CatalogException("Lance tables are not partitioned");
  }

  @Override
  public void dropPartition(ObjectPath path, CatalogPartitionSpec spec, boolean ignore) {
    throw new CatalogException("Lance tables are not partitioned");
  }

  @Override
  public void alterPartition(
      ObjectPath path, CatalogPartitionSpec spec, CatalogPartition partition, boolean ignore) {
    throw new CatalogException("Lance tables are not partitioned");
  }

  @Override
  public List<String> listFunctions(String database) {
    return List.of();
  }

  @Override
  public CatalogFunction getFunction(ObjectPath path) throws FunctionNotExistException {
    throw new FunctionNotExistException(getName(), path);
  }

  @Override
  public boolean functionExists(ObjectPath path) {
    return false;
  }

  @Override
  public void createFunction(ObjectPath path, CatalogFunction function, boolean ignore) {
    throw new CatalogException("The Lance catalog does not store functions");
  }

  @Override
  public void alterFunction(ObjectPath path, CatalogFunction function, boolean ignore) {
    throw new CatalogException("The Lance catalog does not store functions");
  }

  @Override
  public void dropFunction(ObjectPath path, boolean ignore) {
    throw new CatalogException("The Lance catalog does not store functions");
  }

  @Override
  public CatalogTableStatistics getTableStatistics(ObjectPath path) {
    return CatalogTableStatistics.UNKNOWN;
  }

  @Override
  public CatalogColumnStatistics getTableColumnStatistics(ObjectPath path) {
    return CatalogColumnStatistics.UNKNOWN;
  }

  @Override
  public CatalogTableStatistics getPartitionStatistics(ObjectPath path, CatalogPartitionSpec spec) {
    return CatalogTableStatistics.UNKNOWN;
  }

  @Override
  public CatalogColumnStatistics getPartitionColumnStatistics(
      ObjectPath path, CatalogPartitionSpec spec) {
    return CatalogColumnStatistics.UNKNOWN;
  }

  @Override
  public void alterTableStatistics(
      ObjectPath path, CatalogTableStatistics statistics, boolean ignore) {
    throw new CatalogException("The Lance catalog does not store statistics");
  }

  @Override
  public void alterTableColumnStatistics(
      ObjectPath path, CatalogColumnStatistics statistics, boolean ignore) {
    throw new CatalogException("The Lance catalog does not store statistics");
  }

  @Override
  public void alterPartitionStatistics(
      ObjectPath path, CatalogPartitionSpec spec, CatalogTableStatistics stats, boolean ignore) {
    throw new CatalogException("The Lance catalog does not store statistics");
  }

  @Override
  public void alterPartitionColumnStatistics(
      ObjectPath path, CatalogPartitionSpec spec, CatalogColumnStatistics stats, boolean ignore) {
    throw new CatalogException("The Lance catalog does not store statistics");
  }
}
