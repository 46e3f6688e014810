package dev.flinklance.table.lookup;

import dev.flinklance.access.FollowedTable;
import dev.flinklance.access.TableRef;
import dev.flinklance.errors.LanceErrors.Kind;
import dev.flinklance.errors.LanceRetries;
import dev.flinklance.key.KeyType;
import java.io.Serializable;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.function.Supplier;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.types.logical.RowType;

/**
 * Everything a lookup task needs, fixed when the join is planned.
 *
 * @param version the version to read (pinned), or null
 * @param tag the tag whose version to read (pinned), or null; both null: the latest, followed
 * @param producedType the table columns each looked-up row carries; the key columns are among them
 * @param keyColumns the columns the join looks up by, in the order of Flink's key rows (a constant
 *     condition on a table column makes it one too)
 * @param filter a Lance SQL filter on the table's rows (pushed into the join), or null
 * @param keyFilter whether Lance filters by the keys (false: each lookup scans the key columns and
 *     matches them here, for a key column Lance cannot compare with a literal)
 */
@Internal
public record LookupSpec(
    TableRef table,
    Long version,
    String tag,
    RowType producedType,
    List<String> keyColumns,
    String filter,
    boolean keyFilter,
    int maxRetries,
    Duration refreshInterval)
    implements Serializable {
  private static final Duration FIRST_RETRY_DELAY = Duration.ofMillis(100);
  private static final Duration MAX_RETRY_DELAY = Duration.ofSeconds(5);

  /**
   * Runs a step of a lookup or of a cache load, again after a failure that may pass, up to {@code
   * lookup.max-retries} times, waiting from 100 ms, twice as long each time, up to 5 s.
   */
  <T> T withRetries(Supplier<T> step, LanceRetries.BeforeRetry beforeRetry) {
    try {
      return LanceRetries.call(
          LanceRetries.backoff(maxRetries, FIRST_RETRY_DELAY, MAX_RETRY_DELAY),
          EnumSet.of(Kind.TRANSIENT),
          step::get,
          beforeRetry);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting to retry a lookup", e);
    }
  }

  /** Whether the join follows the table to its newest versions. */
  boolean follows() {
    return FollowedTable.follows(version, tag, refreshInterval);
  }

  /** The key columns Lance looks up by: those of a {@link KeyType}, in key order. */
  List<String> lanceKeyColumns() {
    return keyColumns.stream()
        .filter(name -> KeyType.supports(producedType.getTypeAt(producedType.getFieldIndex(name))))
        .toList();
  }

  /** The key columns matched after Lance's lookup, in Flink. */
  ResidualKeys residualKeys() {
    return ResidualKeys.of(keyRowType(), producedType);
  }

  /** The key columns with their declared types, in key order: the rows Flink looks up with. */
  RowType keyRowType() {
    return new RowType(
        keyColumns.stream()
            .map(name -> producedType.getFields().get(producedType.getFieldIndex(name)))
            .toList());
  }
}
