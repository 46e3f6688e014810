package dev.flinklance.table.lookup;

import dev.flinklance.metrics.LanceMetrics;
import java.util.Collection;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.functions.FunctionContext;
import org.apache.flink.table.functions.LookupFunction;

/**
 * A lookup join's lookups with {@code 'lookup.cache' = 'FULL'}: every row of one table version,
 * held compact in memory ({@link CachedRows}) and shared by the TaskManager's tasks of the join
 * ({@link FullCache}); a lookup reads no table. Public: Flink calls it from generated code.
 */
@Internal
public class LanceFullCacheLookupFunction extends LookupFunction {
  private static final long serialVersionUID = 1L;

  private final LookupSpec spec;
  private final Map<String, String> reloadOptions;
  private final NewVersionReloadTrigger trigger;
  private transient FullCache cache;
  private transient CachedRows current;
  private transient CachedRows.Reader reader;

  /**
   * @param reloadOptions the join's options that say when the cache reloads
   * @param trigger when the cache reloads
   */
  LanceFullCacheLookupFunction(
      LookupSpec spec, Map<String, String> reloadOptions, NewVersionReloadTrigger trigger) {
    this.spec = spec;
    this.reloadOptions = reloadOptions;
    this.trigger = trigger;
  }

  @Override
  public void open(FunctionContext context) throws Exception {
    super.open(context);
    cache = FullCache.acquire(spec, reloadOptions, () -> trigger);
    FullCache opened = cache;
    MetricGroup group = LanceMetrics.tableGroup(context.getMetricGroup(), spec.table());
    group.gauge("lookupTableVersion", opened::version);
    group.gauge("lookupCacheRows", opened::size);
    group.gauge("lookupCacheBytes", opened::bytes);
    group.gauge("lookupCacheLoadMillis", opened::loadMillis);
    cache.awaitLoad();
  }

  @Override
  public Collection<RowData> lookup(RowData keyRow) {
    CachedRows rows = cache.rows();
    if (rows != current) { // loaded again
      current = rows;
      reader = rows.reader();
    }
    return reader.get(keyRow);
  }

  @Override
  public void close() throws Exception {
    if (cache != null) {
      cache.release();
      cache = null;
    }
    super.close();
  }
}
