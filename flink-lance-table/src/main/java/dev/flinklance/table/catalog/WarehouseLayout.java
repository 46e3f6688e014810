package dev.flinklance.table.catalog;

import dev.flinklance.dataset.LanceDataset;
import dev.flinklance.dataset.LanceDatasetOptions;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.ObjectPath;

/**
 * Where a catalog keeps what: database {@code db} is the directory {@code <warehouse>/db}, table
 * {@code db.t} the Lance table {@code <warehouse>/db/t.lance} (the layout LanceDB and Lance's
 * directory namespace use, so they see the same tables), and the list of databases is the Lance
 * table {@code <warehouse>/_databases.lance}. Names that would leave the warehouse are refused.
 */
final class WarehouseLayout {
  static final String TABLE_SUFFIX = ".lance";
  private static final String REGISTRY = "_databases" + TABLE_SUFFIX;

  private final String warehouse;
  private final Map<String, String> storageOptions;

  /**
   * @param options the catalog's options: {@code storage.*} are kept for every table
   */
  WarehouseLayout(String warehouse, Map<String, String> options) {
    String root = LanceDatasetOptions.dataset(warehouse, Configuration.fromMap(options)).uri();
    while (root.endsWith("/") && !root.endsWith("://")) {
      root = root.substring(0, root.length() - 1);
    }
    this.warehouse = root;
    this.storageOptions = LanceDatasetOptions.storageOptions(options);
  }

  String warehouse() {
    return warehouse;
  }

  Map<String, String> storageOptions() {
    return storageOptions;
  }

  String databaseUri(String database) {
    checkName("database", database);
    return warehouse + "/" + database;
  }

  LanceDataset table(ObjectPath path) {
    checkName("table", path.getObjectName());
    return new LanceDataset(
        databaseUri(path.getDatabaseName()) + "/" + path.getObjectName() + TABLE_SUFFIX,
        storageOptions);
  }

  LanceDataset registry() {
    return new LanceDataset(warehouse + "/" + REGISTRY, storageOptions);
  }

  /**
   * A name must stay one path segment under its parent: no separators, no {@code ..}, no scheme.
   * Database names starting with {@code _} are the catalog's own ({@code _databases.lance}).
   *
   * @throws ValidationException naming the name and the rule it breaks
   */
  static void checkName(String kind, String name) {
    String problem = null;
    if (name == null || name.isBlank()) {
      problem = "must not be empty";
    } else if (name.contains("/") || name.contains("\\")) {
      problem = "must not contain '/' or '\\'";
    } else if (name.contains("..") || name.equals(".")) {
      problem = "must not contain '..'";
    } else if (name.contains(":")) {
      problem = "must not contain ':' (a URI scheme)";
    } else if (!name.strip().equals(name)) {
      problem = "must not start or end with whitespace";
    } else if (kind.equals("database") && name.startsWith("_")) {
      problem = "must not start with '_' (reserved for the catalog's own tables)";
    }
    if (problem != null) {
      throw new ValidationException(
          String.format("Invalid Lance %s name '%s': a name %s", kind, name, problem));
    }
  }
}
