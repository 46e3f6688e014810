package dev.flinklance.table.lookup;

import dev.flinklance.arrow.read.LanceReadSchema;
import dev.flinklance.key.KeyType;
import dev.flinklance.secrets.Secrets;
import dev.flinklance.source.LanceSourceConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.source.LookupTableSource.LookupContext;
import org.apache.flink.table.connector.source.LookupTableSource.LookupRuntimeProvider;
import org.apache.flink.table.connector.source.lookup.AsyncLookupFunctionProvider;
import org.apache.flink.table.connector.source.lookup.LookupFunctionProvider;
import org.apache.flink.table.connector.source.lookup.LookupOptions.LookupCacheType;
import org.apache.flink.table.connector.source.lookup.PartialCachingAsyncLookupProvider;
import org.apache.flink.table.connector.source.lookup.PartialCachingLookupProvider;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

/**
 * Plans one lookup join against a Lance table: checks the key columns and the {@code lookup.*}
 * options, and hands Flink the provider the options ask for (sync or async function, with Flink's
 * PARTIAL cache around it, or the FULL cache of {@link LanceFullCacheLookupFunction}). Every
 * problem is a {@link ValidationException} naming the table and the column or option, before the
 * job runs.
 */
@Internal
public final class LookupPlanner {

  private LookupPlanner() {}

  /**
   * @param tableOptions the table's options ({@code lookup.*} are read)
   * @param producedType the table's columns as the join reads them
   * @param filter a Lance SQL filter pushed into the table, or null
   */
  public static LookupRuntimeProvider provider(
      LanceSourceConfig source,
      LanceReadSchema schema,
      Map<String, String> tableOptions,
      RowType producedType,
      String filter,
      LookupContext context) {
    String uri = Secrets.redactUri(source.dataset().uri()); // for messages
    LookupConfig config;
    try {
      config = LookupConfig.from(tableOptions);
    } catch (IllegalArgumentException e) {
      throw new ValidationException("Lance table '" + uri + "': " + e.getMessage(), e);
    }
    List<String> keyColumns = new ArrayList<>();
    for (int[] path : context.getKeys()) {
      if (path.length != 1) {
        throw new ValidationException(
            "Lance table '" + uri + "': a lookup join looks up by top-level columns only");
      }
      keyColumns.add(producedType.getFieldNames().get(path[0]));
    }
    boolean keyFilter = true;
    if (config.cache() != LookupCacheType.FULL) {
      boolean lanceKey = false;
      for (String column : keyColumns) {
        LogicalType type = producedType.getTypeAt(producedType.getFieldIndex(column));
        if (KeyType.supports(type)) {
          lanceKey = true;
          keyFilter &= schema.field(column).map(Field::getDictionary).isEmpty();
        } else if (!ResidualKeys.supports(type)) {
          throw unsupportedKey(uri, column, type);
        }
      }
      if (!lanceKey) {
        String column = keyColumns.get(0);
        throw unsupportedKey(
            uri, column, producedType.getTypeAt(producedType.getFieldIndex(column)));
      }
    }
    LookupSpec spec =
        new LookupSpec(
            source.dataset(),
            source.version(),
            source.tag(),
            producedType,
            keyColumns,
            filter,
            keyFilter,
            config.maxRetries(),
            config.refreshInterval());
    switch (config.cache()) {
      case FULL:
        return LookupFunctionProvider.of(
            new LanceFullCacheLookupFunction(
                spec,
                lookupOptions(tableOptions),
                new NewVersionReloadTrigger(
                    spec.table(), spec.follows() ? config.fullCacheSchedule() : null)));
      case PARTIAL:
        return config.async()
            ? PartialCachingAsyncLookupProvider.of(
                new LanceAsyncLookupFunction(spec), config.partialCache())
            : PartialCachingLookupProvider.of(new LanceLookupFunction(spec), config.partialCache());
      default:
        return config.async()
            ? AsyncLookupFunctionProvider.of(new LanceAsyncLookupFunction(spec))
            : LookupFunctionProvider.of(new LanceLookupFunction(spec));
    }
  }

  /** The join's {@code lookup.*} options, in a map that compares and serializes. */
  private static TreeMap<String, String> lookupOptions(Map<String, String> tableOptions) {
    TreeMap<String, String> options = new TreeMap<>();
    tableOptions.forEach(
        (key, value) -> {
          if (key.startsWith(LanceLookupOptions.PREFIX)) {
            options.put(key, value);
          }
        });
    return options;
  }

  /**
   * Lookups without the FULL cache filter by the key in Lance, which compares values of the key
   * types exactly; other scalar key columns (a constant condition such as {@code u.score = 10.0})
   * are matched in Flink on the rows found by the others. The FULL cache matches keys in Flink and
   * takes any type.
   */
  private static ValidationException unsupportedKey(String uri, String column, LogicalType type) {
    return new ValidationException(
        String.format(
            "Lance table '%s': the lookup join looks up by column '%s' of type %s; lookups need a"
                + " key column of the types %s (other scalar columns are matched beside it), or"
                + " '%s' = 'FULL' for any type",
            uri,
            column,
            type.asSummaryString(),
            KeyType.SUPPORTED,
            LanceLookupOptions.CACHE.key()));
  }
}
