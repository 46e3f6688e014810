package dev.flinklance.table.lookup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.access.TableRef;
import dev.flinklance.table.testing.Users;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.table.data.GenericRowData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The FULL cache a TaskManager's tasks share: one load for every task of the same join, a new cache
 * once the last task closed it, and a failed load that fails lookups until a task opening it again
 * loads it again.
 */
class FullCacheTest {
  @TempDir Path dir;

  private static LookupSpec spec(TableRef table) {
    return new LookupSpec(
        table, null, null, Users.ROW_TYPE, List.of("id"), null, true, 0, Duration.ZERO);
  }

  private static FullCache acquire(LookupSpec spec, AtomicInteger triggers) throws Exception {
    return FullCache.acquire(
        spec,
        Map.of("lookup.cache", "FULL"),
        () -> {
          triggers.incrementAndGet();
          return new NewVersionReloadTrigger(spec.table(), null);
        });
  }

  @Test
  void theTasksOfAJoinShareOneLoadUntilTheLastClosesIt() throws Exception {
    String uri = dir.resolve("users").toString();
    Users.write(uri, 10, 5);
    AtomicInteger triggers = new AtomicInteger();
    // each task deserializes its own spec and table: equal, not the same objects
    FullCache first = acquire(spec(Users.local(uri)), triggers);
    FullCache second = acquire(spec(Users.local(uri)), triggers);
    assertThat(second).isSameAs(first);
    assertThat(triggers).hasValue(1);
    first.awaitLoad();
    assertThat(first.size()).isEqualTo(10);
    assertThat(first.version()).isEqualTo(2);
    assertThat(first.loadMillis()).isNotNegative();
    assertThat(first.bytes()).isPositive();
    assertThat(first.rows().reader().get(GenericRowData.of(7L))).hasSize(1);

    first.release();
    FullCache stillShared = acquire(spec(Users.local(uri)), triggers);
    assertThat(stillShared).isSameAs(first);
    stillShared.release();
    second.release();

    FullCache next = acquire(spec(Users.local(uri)), triggers);
    assertThat(next).isNotSameAs(first);
    assertThat(triggers).hasValue(2);
    next.release();
  }

  @Test
  void aFailedLoadFailsLookupsUntilATaskOpeningItLoadsAgain() throws Exception {
    String uri = dir.resolve("later").toString();
    AtomicInteger triggers = new AtomicInteger();
    FullCache failed = acquire(spec(Users.local(uri)), triggers);
    failed.awaitLoad();
    assertThatThrownBy(failed::rows).hasMessageContaining(uri);

    Users.write(uri, 10, 5);
    FullCache again = acquire(spec(Users.local(uri)), triggers); // a restarted task
    assertThat(again).isSameAs(failed);
    again.awaitLoad();
    assertThat(again.rows().rows()).isEqualTo(10);
    again.release();
    failed.release();
  }
}
