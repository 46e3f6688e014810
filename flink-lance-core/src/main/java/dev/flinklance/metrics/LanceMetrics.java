package dev.flinklance.metrics;

import dev.flinklance.access.TableRef;
import dev.flinklance.namespace.NamespaceTable;
import dev.flinklance.secrets.Secrets;
import org.apache.flink.annotation.Internal;
import org.apache.flink.metrics.MetricGroup;

/**
 * Where the connector's own metrics go: a group {@code lance} below the operator's metric group,
 * keyed by the table ({@code <operator>.lance.table.<name>.committedRows}; reporters with tags see
 * the variable {@code table}), as Iceberg keys its committer's metrics. One job may write, compact
 * and read several tables, and a dashboard follows a table across jobs. Flink's standard metrics
 * (FLIP-33's {@code numRecordsSend}, {@code currentFetchEventTimeLag}, the committer's and the
 * enumerator's) stay where Flink puts them, so that tools that know those names find them.
 */
@Internal
public final class LanceMetrics {
  public static final String GROUP = "lance";
  public static final String TABLE_KEY = "table";

  private LanceMetrics() {}

  /** The group of {@code table}'s metrics below {@code operator}: the same group on every call. */
  public static MetricGroup tableGroup(MetricGroup operator, TableRef table) {
    return operator.addGroup(GROUP).addGroup(TABLE_KEY, tableName(table));
  }

  /**
   * The {@code table} key of a table's metrics: the same in every task and after a restart, and
   * never a credential, because reporters ship it to systems outside the job. A table a Lance
   * Namespace serves (a Lance catalog's) is named by its id in the namespace ({@code db.users});
   * any other by its location without user info, query or trailing {@code /} ({@code
   * s3://bucket/t.lance}, {@code /data/t.lance}), with every credential the connector knows masked.
   */
  public static String tableName(TableRef table) {
    return table
        .namespaceTable()
        .map(NamespaceTable::id)
        .map(id -> String.join(".", id))
        .orElseGet(() -> Secrets.redact(location(table.uri())));
  }

  private static String location(String uri) {
    String location = uri;
    int schemeEnd = location.indexOf("://");
    if (schemeEnd > 0) {
      int authorityStart = schemeEnd + 3;
      int pathStart = location.indexOf('/', authorityStart);
      int authorityEnd = pathStart < 0 ? location.length() : pathStart;
      int userInfoEnd = location.lastIndexOf('@', authorityEnd - 1);
      if (userInfoEnd >= authorityStart) {
        location = location.substring(0, authorityStart) + location.substring(userInfoEnd + 1);
      }
      int query = location.indexOf('?');
      if (query >= 0) {
        location = location.substring(0, query);
      }
    }
    int end = location.length();
    while (end > 1 && location.charAt(end - 1) == '/') {
      end--;
    }
    return location.substring(0, end);
  }
}
