package dev.flinklance.dataset;

import dev.flinklance.dataset.LanceDatasetOptions.ConditionalPutCheck;
import dev.flinklance.dataset.LanceErrors.Kind;
import java.io.Serializable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.annotation.Internal;
import org.lance.CommitBuilder;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.OpenDatasetBuilder;
import org.lance.ReadOptions;
import org.lance.Transaction;
import org.lance.WriteFragmentBuilder;
import org.lance.operation.Append;
import org.lance.operation.Overwrite;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
public final class LanceDataset implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(LanceDataset.class);

  /** Retries of the re-append of hidden rows ({@link #reappendOnLatest}). */
  private static final int REAPPEND_RETRIES = 4;

  private final String uri;
  private final Map<String, String> storageOptions;
  private final ConditionalPutCheck conditionalPutCheck;
  private final NamespaceTable namespaceTable;

  public LanceDataset(String uri, Map<String, String> storageOptions) {
    this(uri, storageOptions, ConditionalPutCheck.FAIL);
  }

  public LanceDataset(
      String uri, Map<String, String> storageOptions, ConditionalPutCheck conditionalPutCheck) {
    this(uri, storageOptions, conditionalPutCheck, null);
  }

  /**
   * @param storageOptions Lance storage options; for a table on an object store, {@link
   *     ObjectStoreDefaults} fill in the timeouts the user did not set
   * @param conditionalPutCheck what {@link ConditionalPutProbe#verify} does before the first write
   * @param namespaceTable the table in the Lance Namespace that serves it, or null
   */
  public LanceDataset(
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
    Secrets.remember(this.storageOptions);
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
  public static LanceDataset at(String path, Map<String, String> storageOptions) {
    String uri =
        path.contains("://") ? path : Path.of(path).toAbsolutePath().normalize().toString();
    return new LanceDataset(uri, storageOptions);
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
      String problem = "cannot open version " + version;
      throw LanceErrors.isNotFound(e)
          ? new PermanentDatasetException(uri, problem, e)
          : LanceDatasetException.wrap(uri, problem, e);
    }
  }

  private Dataset openWith(BufferAllocator allocator, ReadOptions.Builder options) {
    OpenDatasetBuilder open = Dataset.open().allocator(allocator);
    if (namespaceTable == null) {
      open.uri(uri);
    } else {
      open.namespaceClient(namespaceTable.namespace().client()).tableId(namespaceTable.id());
    }
    return open.readOptions(options.setStorageOptions(storageOptions).build()).build();
  }

  /**
   * Creates an empty table, unless one exists. Lance 7.0.0 offers no create-if-absent: its creation
   * commit checks for the table and then commits, and a table that appears in between is silently
   * overwritten (the commit lands as an Overwrite at version N &gt; 1). So the version we get back
   * tells: version 1 means we created the table; anything later means we replaced a table someone
   * else had just created, and we restore their version at once. Data never rides on the creation
   * commit, so the worst case is an extra empty version.
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
    Overwrite.Builder overwrite = Overwrite.builder().fragments(List.of()).schema(schema);
    if (!config.isEmpty()) {
      overwrite.configUpsertValues(config);
    }
    Dataset created =
        LanceCalls.callOr(
            uri,
            "cannot create the table",
            () -> {
              try (Transaction creation =
                  new Transaction.Builder().readVersion(0).operation(overwrite.build()).build()) {
                CommitBuilder commit =
                    new CommitBuilder(uri, allocator)
                        .writeParams(storageOptions())
                        .useStableRowIds(stableRowIds)
                        .maxRetries(0);
                if (dataStorageVersion != null) {
                  commit.storageFormat(storageFormatName(dataStorageVersion));
                }
                return commit.execute(creation);
              }
            },
            e -> LanceErrors.isAlreadyExists(e) || LanceErrors.isCommitConflict(e),
            null);
    if (created == null) {
      return Optional.empty(); // another writer's creation came first
    }
    if (created.version() == 1) {
      return Optional.of(created);
    }
    undoRacedCreation(created, schema);
    return Optional.empty();
  }

  /**
   * Our creation landed as an Overwrite on a table someone created just before, hiding its rows
   * (and replacing its schema). When the schemas are the same (two instances of one job starting
   * together), their fragments are appended again on top of the latest version: nothing committed
   * by anyone since is rolled back, and racing creators each bring back what they hid. Otherwise
   * (another schema, deletion files that a re-append cannot carry) their version is restored.
   */
  private void undoRacedCreation(Dataset created, Schema ours) {
    long replaced = created.version() - 1;
    LOG.warn(
        "Creating {} raced with another writer: our creation landed as version {} on top of"
            + " theirs; bringing back what version {} held.",
        this,
        created.version(),
        replaced);
    try (Dataset theirs = created.checkoutVersion(replaced)) {
      List<FragmentMetadata> hidden = new ArrayList<>();
      theirs.getFragments().forEach(fragment -> hidden.add(fragment.metadata()));
      boolean reappendable =
          theirs.getSchema().equals(ours)
              && hidden.stream().allMatch(f -> f.getDeletionFile() == null);
      if (!reappendable) {
        theirs.restore();
      } else if (!hidden.isEmpty()) {
        reappendOnLatest(created, hidden);
      }
    } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
      throw new PermanentDatasetException(
          uri,
          String.format(
              "a concurrent creation hid the rows of version %d and bringing them back failed;"
                  + " restore it with Dataset.checkoutVersion(%d).restore()",
              replaced, replaced),
          e);
    } finally {
      created.close();
    }
  }

  /**
   * A further racing creation can land its Overwrite between our read and our Append, which then
   * conflicts; that creator brings back only what it hid (our empty creation), so the hidden rows
   * are appended again on top of the newest version.
   */
  private void reappendOnLatest(Dataset created, List<FragmentMetadata> fragments) {
    LanceRetries.callAtOnce(
        REAPPEND_RETRIES,
        EnumSet.of(Kind.CONFLICT, Kind.TRANSIENT),
        () ->
            LanceCalls.call(
                uri,
                "cannot append the hidden rows again",
                () -> {
                  try (Dataset latest = created.checkoutVersion(created.latestVersion())) {
                    reappend(latest, fragments);
                    return null;
                  }
                }),
        (failure, retry, delay) ->
            LOG.warn("Bringing back hidden rows of {} failed; trying again", this, failure));
  }

  /** Appends existing fragment files again; the commit gives them new ids and row lineage. */
  private void reappend(Dataset latest, List<FragmentMetadata> fragments) {
    List<FragmentMetadata> fresh = new ArrayList<>();
    for (FragmentMetadata f : fragments) {
      fresh.add(new FragmentMetadata(f.getId(), f.getFiles(), f.getPhysicalRows(), null, null));
    }
    try (Transaction append =
            new Transaction.Builder()
                .readVersion(latest.version())
                .operation(Append.builder().fragments(fresh).build())
                .build();
        Dataset ignored =
            new CommitBuilder(latest)
                .writeParams(storageOptions())
                .maxRetries(10)
                .execute(append)) {
      // committed
    }
  }

  /** "2.2" (how users write it) to "v2_2" (what Lance's commit builder expects). */
  static String storageFormatName(String version) {
    return version.matches("\\d+\\.\\d+") ? "v" + version.replace('.', '_') : version;
  }

  /** The URI, without credentials written into it: for messages and logs. */
  @Override
  public String toString() {
    return Secrets.redactUri(uri);
  }
}
