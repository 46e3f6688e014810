package dev.flinklance.access;

import dev.flinklance.access.LanceDatasetOptions.ConditionalPutCheck;
import dev.flinklance.errors.LanceCalls;
import dev.flinklance.errors.LanceDatasetException;
import dev.flinklance.errors.LanceErrors;
import dev.flinklance.errors.PermanentDatasetException;
import dev.flinklance.namespace.NamespaceTable;
import dev.flinklance.secrets.Secrets;
import dev.flinklance.store.ObjectStoreDefaults;
import java.io.Serializable;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.annotation.Internal;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.OpenDatasetBuilder;
import org.lance.ReadOptions;
import org.lance.WriteFragmentBuilder;

/**
 * Where a Lance table lives and how to reach it: its URI and the storage options that go with every
 * Lance call. All Lance failures leave here with the table's URI in the message.
 *
 * <p>A table served by a Lance Namespace also knows it ({@link #namespaceTable}): its storage
 * options then include what the namespace vends (temporary credentials, asked again before they
 * expire), and it is opened through the namespace, so that Lance refreshes the credentials of an
 * open dataset itself.
 */
@Internal
public final class TableRef implements Serializable {
  private static final long serialVersionUID = 1L;

  static {
    // the first table a JVM reaches: the library copies killed JVMs left behind may be removed
    NativeLibraryLeftovers.removeOnce();
  }

  private final String uri;
  private final Map<String, String> storageOptions;
  private final ConditionalPutCheck conditionalPutCheck;
  private final NamespaceTable namespaceTable;

  /** Null in a table serialized before it existed: {@link SessionCaches#DEFAULT} then. */
  private final SessionCaches sessionCaches;

  public TableRef(String uri, Map<String, String> storageOptions) {
    this(uri, storageOptions, ConditionalPutCheck.FAIL);
  }

  public TableRef(
      String uri, Map<String, String> storageOptions, ConditionalPutCheck conditionalPutCheck) {
    this(uri, storageOptions, conditionalPutCheck, null);
  }

  /**
   * @param storageOptions Lance storage options; for a table on an object store, {@link
   *     ObjectStoreDefaults} fill in the timeouts the user did not set
   * @param conditionalPutCheck what {@link ConditionalPutProbe#verify} does before the first write
   * @param namespaceTable the table in the Lance Namespace that serves it, or null
   */
  public TableRef(
      String uri,
      Map<String, String> storageOptions,
      ConditionalPutCheck conditionalPutCheck,
      NamespaceTable namespaceTable) {
    checkUri(uri);
    this.uri = uri;
    this.storageOptions =
        Map.copyOf(onObjectStore(uri) ? ObjectStoreDefaults.apply(storageOptions) : storageOptions);
    this.conditionalPutCheck = conditionalPutCheck;
    this.namespaceTable = namespaceTable;
    this.sessionCaches = SessionCaches.DEFAULT;
    Secrets.remember(this.storageOptions);
  }

  private TableRef(TableRef table, SessionCaches sessionCaches) {
    this.uri = table.uri;
    this.storageOptions = table.storageOptions;
    this.conditionalPutCheck = table.conditionalPutCheck;
    this.namespaceTable = table.namespaceTable;
    this.sessionCaches = sessionCaches;
  }

  /** This table, opened with other limits on the caches of its Lance session. */
  public TableRef withSessionCaches(SessionCaches caches) {
    return new TableRef(this, caches);
  }

  /**
   * The limits on the caches of the Lance session the handles of this table share in a JVM ({@link
   * SharedSessions}).
   */
  public SessionCaches sessionCaches() {
    return sessionCaches == null ? SessionCaches.DEFAULT : sessionCaches;
  }

  /**
   * Lance parses a URI with a scheme as a URL: a {@code #} or {@code ?} would end its path, so the
   * table would live somewhere else than the URI says (a plain local path is taken as it is). Only
   * Lance's DynamoDB commit store reads a query ({@code s3+ddb://bucket/t.lance?ddbTableName=x}).
   */
  private static void checkUri(String uri) {
    int schemeEnd = uri.indexOf("://");
    if (schemeEnd <= 0) {
      return;
    }
    boolean takesQuery = uri.substring(0, schemeEnd).equalsIgnoreCase("s3+ddb");
    if (uri.contains("#") || (uri.contains("?") && !takesQuery)) {
      throw new IllegalArgumentException(
          String.format(
              "Invalid Lance table URI '%s': it must not contain '#'%s (Lance would read the"
                  + " rest as a URI fragment or query and use another path); use a plain local"
                  + " path or another directory name",
              Secrets.redactUri(uri), takesQuery ? "" : " or '?'"));
    }
  }

  /** A task manager learns the table's credentials by deserializing it: remember them there. */
  private Object readResolve() {
    Secrets.remember(storageOptions);
    return this;
  }

  /**
   * The table at {@code path}. A relative local path is resolved where this is called (the job's
   * client): each task manager would otherwise resolve it against its own working directory.
   */
  public static TableRef at(String path, Map<String, String> storageOptions) {
    String uri =
        path.contains("://") ? path : Path.of(path).toAbsolutePath().normalize().toString();
    return new TableRef(uri, storageOptions);
  }

  public String uri() {
    return uri;
  }

  /**
   * The storage options for a Lance call made now: the configured ones, and over them what the
   * table's namespace vends (valid for at least a while: see {@link
   * NamespaceTable#storageOptions}).
   */
  public Map<String, String> storageOptions() {
    if (namespaceTable == null) {
      return storageOptions;
    }
    Map<String, String> vended = namespaceTable.storageOptions();
    if (vended.isEmpty()) {
      return storageOptions;
    }
    Map<String, String> merged = new TreeMap<>(storageOptions);
    merged.putAll(vended);
    return merged;
  }

  /** The storage options given to this table, without any that a namespace vends. */
  public Map<String, String> configuredStorageOptions() {
    return storageOptions;
  }

  /** The table in the Lance Namespace that serves it, if any. */
  public Optional<NamespaceTable> namespaceTable() {
    return Optional.ofNullable(namespaceTable);
  }

  /**
   * Lance's fragment writer for this table, with its storage options and, for a table a namespace
   * serves, the namespace (Lance then refreshes vended credentials during a long write).
   */
  public WriteFragmentBuilder writeFragment() {
    WriteFragmentBuilder builder =
        Fragment.write().datasetUri(uri).storageOptions(storageOptions());
    if (namespaceTable != null) {
      builder.namespaceClient(namespaceTable.namespace().client()).tableId(namespaceTable.id());
    }
    return builder;
  }

  public ConditionalPutCheck conditionalPutCheck() {
    return conditionalPutCheck;
  }

  /** Whether the table is on an object store: any URI with a scheme but file:// and memory://. */
  public boolean onObjectStore() {
    return onObjectStore(uri);
  }

  private static boolean onObjectStore(String uri) {
    int schemeEnd = uri.indexOf("://");
    if (schemeEnd <= 0) {
      return false; // a local path
    }
    String scheme = uri.substring(0, schemeEnd).toLowerCase(Locale.ROOT);
    return !scheme.equals("file")
        && !scheme.equals("file-object-store")
        && !scheme.equals("memory");
  }

  /** Opens the latest version. */
  public Dataset open(BufferAllocator allocator) {
    return openIfExists(allocator)
        .orElseThrow(() -> new PermanentDatasetException(uri, "the table does not exist", null));
  }

  /** Opens the latest version, or returns empty if there is no table at the URI. */
  public Optional<Dataset> openIfExists(BufferAllocator allocator) {
    return LanceCalls.callOr(
        uri,
        "cannot open the table",
        () -> Optional.of(openWith(allocator, new ReadOptions.Builder())),
        LanceErrors::isNotFound,
        Optional.empty());
  }

  /**
   * Opens one version of the table (time travel).
   *
   * @throws PermanentDatasetException if the table or the version does not exist: a version that
   *     was cleaned up or a table that was dropped never comes back
   */
  public Dataset open(BufferAllocator allocator, long version) {
    try {
      return openWith(allocator, new ReadOptions.Builder().setVersion(version));
    } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
      throw versionFailure(uri, version, e);
    }
  }

  /** A version that is not found (cleaned up, or the table dropped) never comes back. */
  static LanceDatasetException versionFailure(String uri, long version, Exception e) {
    String problem = "cannot open version " + version;
    return LanceErrors.isNotFound(e)
        ? new PermanentDatasetException(uri, problem, e)
        : LanceDatasetException.wrap(uri, problem, e);
  }

  private Dataset openWith(BufferAllocator allocator, ReadOptions.Builder options) {
    OpenDatasetBuilder open = Dataset.open().allocator(allocator);
    if (namespaceTable == null) {
      open.uri(uri);
    } else {
      open.namespaceClient(namespaceTable.namespace().client()).tableId(namespaceTable.id());
    }
    open.readOptions(options.setStorageOptions(storageOptions).build());
    return SharedSessions.open(
        new SharedSessions.Key(uri, storageOptions, sessionCaches()),
        session -> open.session(session).build());
  }

  /**
   * Creates an empty table, unless one exists; safe against writers creating it at the same moment
   * (see {@link TableCreation}).
   *
   * @param dataStorageVersion Lance file format version ("2.1", "2.2", ...), or null for Lance's
   *     default
   * @return the new table, or empty if another writer created it first (open it instead)
   */
  public Optional<Dataset> createIfAbsent(
      BufferAllocator allocator, Schema schema, boolean stableRowIds, String dataStorageVersion) {
    return createIfAbsent(allocator, schema, stableRowIds, dataStorageVersion, Map.of());
  }

  /**
   * As {@link #createIfAbsent(BufferAllocator, Schema, boolean, String)}, with table config entries
   * ({@link Dataset#getConfig()}) set by the creation commit itself, so that no reader ever sees
   * the table without them.
   */
  public Optional<Dataset> createIfAbsent(
      BufferAllocator allocator,
      Schema schema,
      boolean stableRowIds,
      String dataStorageVersion,
      Map<String, String> config) {
    return new TableCreation(this, allocator)
        .createIfAbsent(schema, stableRowIds, dataStorageVersion, config);
  }

  /** The URI, without credentials written into it: for messages and logs. */
  @Override
  public String toString() {
    return Secrets.redactUri(uri);
  }
}
