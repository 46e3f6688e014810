package dev.flinklance.table.testing;

import dev.flinklance.testing.TestTables;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.RowType;
import org.lance.namespace.LanceNamespace;
import org.lance.namespace.RestAdapter;
import org.lance.namespace.errors.NamespaceNotFoundException;
import org.lance.namespace.model.DescribeNamespaceRequest;
import org.lance.namespace.model.DescribeTableRequest;

/**
 * A Lance catalog for a test, of each kind the catalog supports: a warehouse of the first version,
 * a directory namespace, and a REST namespace (lance-core's {@code RestAdapter} over a directory
 * namespace, on 127.0.0.1). {@link #client} is a plain Lance Namespace client of the same
 * namespace, standing in for another engine.
 */
public final class TestCatalog implements AutoCloseable {

  /** The kinds of Lance catalog every catalog test runs on. */
  public enum Kind {
    WAREHOUSE,
    DIR,
    REST
  }

  private final Kind kind;
  private final String root;
  private final Map<String, String> storageOptions;
  private final RestAdapter server;
  private final BufferAllocator allocator = new RootAllocator();
  private LanceNamespace client;

  /**
   * @param root the warehouse or the directory namespace's root
   * @param storageOptions Lance storage options (for {@code s3://} roots)
   */
  public TestCatalog(Kind kind, String root, Map<String, String> storageOptions) {
    this.kind = kind;
    this.root = root;
    this.storageOptions = Map.copyOf(storageOptions);
    if (kind == Kind.REST) {
      server = new RestAdapter("dir", directoryProperties(), "127.0.0.1", 0);
      server.start();
    } else {
      server = null;
    }
  }

  public TestCatalog(Kind kind, Path dir) {
    this(kind, "file://" + dir.resolve("lake"), Map.of());
  }

  public Kind kind() {
    return kind;
  }

  /** The warehouse or the directory namespace's root, as given. */
  public String root() {
    return root;
  }

  private Map<String, String> directoryProperties() {
    Map<String, String> properties = new HashMap<>();
    properties.put("root", root);
    storageOptions.forEach((key, value) -> properties.put("storage." + key, value));
    return properties;
  }

  /** {@code http://127.0.0.1:PORT} of the REST server. */
  public String restUri() {
    return "http://127.0.0.1:" + server.getPort();
  }

  /** The catalog's options, as {@code CREATE CATALOG ... WITH} takes them. */
  public Map<String, String> catalogOptions() {
    Map<String, String> options = new java.util.LinkedHashMap<>();
    options.put("type", "lance");
    switch (kind) {
      case WAREHOUSE -> options.put("warehouse", root);
      case DIR -> {
        options.put("impl", "dir");
        options.put("root", root);
      }
      case REST -> {
        options.put("impl", "rest");
        options.put("uri", restUri());
      }
    }
    storageOptions.forEach((key, value) -> options.put("storage." + key, value));
    return options;
  }

  /** The catalog's options as a WITH clause's contents. */
  public String options() {
    return catalogOptions().entrySet().stream()
        .map(e -> String.format("'%s' = '%s'", e.getKey(), e.getValue()))
        .collect(Collectors.joining(", "));
  }

  public String createCatalog(String name) {
    return createCatalog(name, "");
  }

  /**
   * @param extra more options, each as {@code , 'key' = 'value'}
   */
  public String createCatalog(String name, String extra) {
    return "CREATE CATALOG " + name + " WITH (" + options() + extra + ")";
  }

  /** Creates the catalog as {@code lake} in {@code env} and makes it the current one. */
  public TableEnvironment use(TableEnvironment env) {
    return use(env, "");
  }

  /**
   * @param extra more options, each as {@code , 'key' = 'value'}
   */
  public TableEnvironment use(TableEnvironment env, String extra) {
    Sql.exec(env, createCatalog("lake", extra));
    Sql.exec(env, "USE CATALOG lake");
    return env;
  }

  /** A plain client of the catalog's namespace (not for {@link Kind#WAREHOUSE}). */
  public LanceNamespace client() {
    if (client == null) {
      client =
          kind == Kind.REST
              ? LanceNamespace.connect("rest", Map.of("uri", restUri()), allocator)
              : LanceNamespace.connect("dir", directoryProperties(), allocator);
    }
    return client;
  }

  /**
   * Writes another engine's table at {@code location}: {@code (id BIGINT, v STRING)} holding the
   * row {@code (7, 'seven')}.
   */
  public static void writeOthersTable(String location) {
    RowType row =
        (RowType)
            DataTypes.ROW(
                    DataTypes.FIELD("id", DataTypes.BIGINT()),
                    DataTypes.FIELD("v", DataTypes.STRING()))
                .getLogicalType();
    TestTables.create(location, row, Map.of());
    TestTables.append(
        location, row, List.of(GenericRowData.of(7L, StringData.fromString("seven"))), 10);
  }

  /** Where table {@code db.t} is, as the namespace (or the warehouse layout) says. */
  public String tableUri(String database, String table) {
    if (kind == Kind.WAREHOUSE) {
      return root + "/" + database + "/" + table + ".lance";
    }
    return client()
        .describeTable(new DescribeTableRequest().id(List.of(database, table)))
        .getLocation();
  }

  /** Whether the database is gone: its directory (warehouse) or its namespace. */
  public boolean databaseGone(String database) {
    if (kind == Kind.WAREHOUSE) {
      return !java.nio.file.Files.exists(Path.of(root.replaceFirst("^file://", ""), database));
    }
    try {
      client().describeNamespace(new DescribeNamespaceRequest().id(List.of(database)));
      return false;
    } catch (NamespaceNotFoundException e) {
      return true;
    }
  }

  @Override
  public void close() throws Exception {
    if (client instanceof AutoCloseable closeable) {
      closeable.close();
    }
    if (server != null) {
      server.close();
    }
    allocator.close();
  }
}
