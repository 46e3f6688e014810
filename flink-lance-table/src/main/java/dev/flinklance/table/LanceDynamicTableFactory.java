package dev.flinklance.table;

import dev.flinklance.access.LanceDatasetOptions;
import dev.flinklance.access.OpenTable;
import dev.flinklance.access.TableLayout;
import dev.flinklance.access.TableRef;
import dev.flinklance.arrow.read.LanceReadSchema;
import dev.flinklance.arrow.read.ReadableAs;
import dev.flinklance.arrow.write.ArrowBatchWriter;
import dev.flinklance.compactor.LanceCompactionOptions;
import dev.flinklance.config.OptionFields;
import dev.flinklance.key.PrimaryKey;
import dev.flinklance.secrets.Secrets;
import dev.flinklance.sink.LanceSinkOptions;
import dev.flinklance.sink.SchemaEvolutionMode;
import dev.flinklance.sink.writer.MissingColumns;
import dev.flinklance.source.LanceSourceConfig;
import dev.flinklance.source.LanceSourceOptions;
import dev.flinklance.source.TableVersions;
import dev.flinklance.table.lookup.LanceLookupOptions;
import dev.flinklance.table.lookup.LookupConfig;
import dev.flinklance.table.vector.VectorSearchConfig;
import dev.flinklance.table.vector.VectorSearchOptions;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.catalog.UniqueConstraint;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.factories.DynamicTableFactory;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.logical.RowType;
import org.lance.Dataset;

/**
 * {@code 'connector' = 'lance'}: Lance tables as Flink SQL sources and sinks. Options are checked
 * here, before the job runs: unknown keys (Flink's error lists the valid ones), values, and the
 * declared schema against the existing table, by column.
 */
@Internal
public class LanceDynamicTableFactory
    implements DynamicTableSourceFactory, DynamicTableSinkFactory {
  public static final String IDENTIFIER = "lance";
  private static final String SOURCE_CLASS = "dev.flinklance.table.LanceDynamicTableSource";

  private final Function<ObjectIdentifier, Map<String, String>> catalogOptions;

  public LanceDynamicTableFactory() {
    this(identifier -> Map.of());
  }

  /**
   * @param catalogOptions the options a catalog adds to a table ({@code storage.*}, the namespace
   *     that serves it); a table's own options take precedence
   */
  public LanceDynamicTableFactory(Function<ObjectIdentifier, Map<String, String>> catalogOptions) {
    this.catalogOptions = catalogOptions;
  }

  @Override
  public String factoryIdentifier() {
    return IDENTIFIER;
  }

  @Override
  public Set<ConfigOption<?>> requiredOptions() {
    return Set.of(LanceDatasetOptions.PATH);
  }

  /**
   * Every option of the dataset, the sink, the source, the compactor, the vector search and the
   * lookup join (their option classes, so that a new option is a SQL key at once), and Flink's
   * {@code sink.parallelism} and {@code scan.parallelism}.
   */
  @Override
  public Set<ConfigOption<?>> optionalOptions() {
    Set<ConfigOption<?>> options = new HashSet<>();
    for (Class<?> holder :
        List.of(
            LanceDatasetOptions.class,
            LanceSinkOptions.class,
            LanceSourceOptions.class,
            LanceCompactionOptions.class,
            VectorSearchOptions.class,
            LanceLookupOptions.class)) {
      options.addAll(OptionFields.of(holder));
    }
    options.remove(LanceDatasetOptions.PATH);
    options.add(FactoryUtil.SINK_PARALLELISM);
    options.add(FactoryUtil.SOURCE_PARALLELISM);
    return options;
  }

  @Override
  public DynamicTableSource createDynamicTableSource(Context context) {
    requireSourceApi();
    Map<String, String> options = validatedOptions(context);
    LanceSourceConfig config =
        invalidIsValidation(
            () -> LanceSourceConfig.from(toConfig(options)).withChangelogKey(primaryKey(context)));
    invalidIsValidation(() -> VectorSearchConfig.from(options, Map.of()));
    invalidIsValidation(() -> LookupConfig.from(options));
    LanceReadSchema schema =
        TableVersions.readSchema(config.dataset(), config.version(), config.tag());
    RowType declared = physicalRowType(context);
    checkReadable(declared, schema, config);
    return new LanceDynamicTableSource(
        config,
        schema,
        TableVersions.oldestReadSchema(config, schema),
        Map.copyOf(options),
        declared);
  }

  /**
   * The table source of the Flink 2.x build implements VectorSearchTableSource, which Flink has
   * since 2.2. On Flink 2.1 this factory still loads and writes (a connector jar in lib/ breaks no
   * other connector), but the source class cannot be loaded: say so instead of a
   * NoClassDefFoundError. (The Flink 1.20 build's source has no VECTOR_SEARCH.)
   */
  private static void requireSourceApi() {
    try {
      Class.forName(SOURCE_CLASS, false, LanceDynamicTableFactory.class.getClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      throw new ValidationException(
          "Reading Lance tables with Flink SQL needs Flink 2.2 or later ("
              + String.valueOf(e.getMessage()).replace('/', '.')
              + " is missing); INSERT INTO a Lance table works on Flink 2.1 too");
    }
  }

  @Override
  public DynamicTableSink createDynamicTableSink(Context context) {
    Map<String, String> options = validatedOptions(context);
    RowType declared = physicalRowType(context);
    TableRef table =
        LanceDatasetOptions.dataset(options.get(LanceDatasetOptions.PATH.key()), toConfig(options));
    List<String> primaryKey =
        context
            .getCatalogTable()
            .getResolvedSchema()
            .getPrimaryKey()
            .map(UniqueConstraint::getColumns)
            .orElse(List.of());
    checkWritable(declared, primaryKey, table, toConfig(options));
    Map<String, String> sinkOptions = new HashMap<>(options);
    sinkOptions.put(LanceDatasetOptions.PATH.key(), table.uri());
    sinkOptions.remove(FactoryUtil.CONNECTOR.key());
    sinkOptions.remove(FactoryUtil.SINK_PARALLELISM.key());
    sinkOptions
        .keySet()
        .removeIf(
            key ->
                key.startsWith("scan.")
                    || key.startsWith(VectorSearchOptions.PREFIX)
                    || key.startsWith(LanceLookupOptions.PREFIX));
    Integer parallelism = toConfig(options).get(FactoryUtil.SINK_PARALLELISM);
    LanceDynamicTableSink sink =
        new LanceDynamicTableSink(
            context.getObjectIdentifier().asSummaryString(),
            declared,
            sinkOptions,
            parallelism,
            primaryKey);
    invalidIsValidation(sink::buildSink); // invalid sink options fail at planning
    return sink;
  }

  /** The table's options after Flink's validation, with the catalog's options under them. */
  private Map<String, String> validatedOptions(Context context) {
    FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
    helper.validateExcept(LanceDatasetOptions.STORAGE_PREFIX);
    Map<String, String> options =
        new HashMap<>(catalogOptions.apply(context.getObjectIdentifier()));
    options.putAll(context.getCatalogTable().getOptions());
    return options;
  }

  /** A changelog read pairs the rows of an update by the table's declared primary key. */
  private static List<String> primaryKey(DynamicTableFactory.Context context) {
    return context
        .getCatalogTable()
        .getResolvedSchema()
        .getPrimaryKey()
        .map(key -> key.getColumns())
        .orElse(List.of());
  }

  private static RowType physicalRowType(DynamicTableFactory.Context context) {
    return (RowType) context.getPhysicalRowDataType().getLogicalType();
  }

  private static Configuration toConfig(Map<String, String> options) {
    return Configuration.fromMap(options);
  }

  /**
   * Every declared column exists in the table, with a type Flink can read as declared. A read of an
   * older version (time travel, {@code scan.version}, {@code scan.tag}) may declare columns added
   * since, as a catalog does with the table's latest schema: those exist in the latest version and
   * read as NULL in the older one (the source refuses that for a NOT NULL column it reads).
   */
  private static void checkReadable(
      RowType declared, LanceReadSchema schema, LanceSourceConfig config) {
    TableRef table = config.dataset();
    boolean pinned = config.version() != null || config.tag() != null;
    boolean lacksSome =
        declared.getFieldNames().stream().anyMatch(column -> schema.field(column).isEmpty());
    LanceReadSchema latest =
        pinned && lacksSome ? TableVersions.readSchema(table, null, null) : schema;
    RowType actual =
        invalidIsValidation(
            () ->
                new RowType(
                    declared.getFieldNames().stream()
                        .map(
                            column ->
                                (schema.field(column).isPresent() ? schema : latest)
                                    .rowType(List.of(column))
                                    .getFields()
                                    .get(0))
                        .toList()),
            table.uri());
    ReadableAs.mismatch(declared, actual)
        .ifPresent(
            problem -> {
              throw new ValidationException("Lance table '" + table + "': " + problem);
            });
  }

  /**
   * An existing table must take the declared rows, and its declared primary key must be the table's
   * (none if the table declares none); a missing one is created by the sink.
   */
  private static void checkWritable(
      RowType declared, List<String> primaryKey, TableRef table, Configuration options) {
    Optional<OpenTable> existing = OpenTable.latestIfExists(table);
    if (existing.isEmpty()) {
      return;
    }
    try (OpenTable open = existing.get()) {
      Dataset dataset = open.dataset();
      invalidIsValidation(
          () -> {
            if (primaryKey.isEmpty()) {
              PrimaryKey.requireNoKey(dataset.getLanceSchema(), table.uri());
            } else {
              PrimaryKey.of(declared, primaryKey, table.uri())
                  .checkTable(dataset.getLanceSchema(), table.uri());
            }
            return null;
          });
      RowType written =
          primaryKey.isEmpty()
              ? declared
              : PrimaryKey.of(declared, primaryKey, table.uri()).withKeysNotNull(declared);
      // with add-columns the sink adds the declared columns the table lacks before it writes
      Schema stream = TableLayout.from(options).schemaFor(written);
      Schema target;
      if (options.get(LanceSinkOptions.SINK_SCHEMA_EVOLUTION) == SchemaEvolutionMode.ADD_COLUMNS) {
        target =
            invalidIsValidation(
                () -> MissingColumns.widened(dataset, table.uri(), stream), table.uri());
      } else {
        MissingColumns missing = MissingColumns.of(stream, dataset.getSchema());
        if (!missing.isEmpty()) {
          throw new ValidationException(
              String.format(
                  "Lance table '%s': the table lacks declared columns %s; set '%s' = '%s' to"
                      + " add them (nullable) before the sink's first commit",
                  Secrets.redactUri(table.uri()),
                  missing,
                  LanceSinkOptions.SINK_SCHEMA_EVOLUTION.key(),
                  SchemaEvolutionMode.ADD_COLUMNS));
        }
        target = dataset.getSchema();
      }
      try (ArrowBatchWriter ignored =
          invalidIsValidation(
              () -> ArrowBatchWriter.create(written, target, open.allocator()), table.uri())) {
        // the declared rows can be written
      }
    }
  }

  private static <T> T invalidIsValidation(Supplier<T> check) {
    return invalidIsValidation(check, null);
  }

  /** Flink reports a ValidationException as a planning error, with our message. */
  private static <T> T invalidIsValidation(Supplier<T> check, String uri) {
    try {
      return check.get();
    } catch (IllegalArgumentException e) {
      String message =
          uri == null
              ? e.getMessage()
              : "Lance table '" + Secrets.redactUri(uri) + "': " + e.getMessage();
      throw new ValidationException(message, e);
    }
  }
}
