package dev.flinklance.table.lookup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.errors.PermanentDatasetException;
import dev.flinklance.key.RowKey;
import dev.flinklance.table.testing.Users;
import dev.flinklance.testing.LogCapture;
import dev.flinklance.testing.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.FileUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lance.Dataset;

/**
 * {@link TableLookup} on real Lance tables: exact rows for every kind of key, with and without a
 * scalar index (also one that misses appended fragments), one Lance query per 128 keys, one table
 * version per lookup, and the failures that end a job.
 */
class TableLookupTest {
  private static final int ROWS = 3_000;

  @TempDir Path dir;

  /** Counts what the lookup reports. */
  static final class Metrics extends UnregisteredMetricsGroup {
    final Map<String, Counter> counters = new HashMap<>();

    /** The counters of the table's group ({@code lance} → {@code table}) are counted here too. */
    @Override
    public MetricGroup addGroup(String name) {
      return this;
    }

    @Override
    public MetricGroup addGroup(String key, String value) {
      return this;
    }

    @Override
    public Counter counter(String name) {
      return counters.computeIfAbsent(name, n -> new SimpleCounter());
    }

    long count(String name) {
      return counters.get(name).getCount();
    }
  }

  private static LookupSpec spec(
      String uri, List<String> keys, String filter, Duration refresh, RowType produced) {
    return new LookupSpec(Users.local(uri), null, null, produced, keys, filter, true, 0, refresh);
  }

  private static LookupSpec spec(String uri, List<String> keys) {
    return spec(uri, keys, null, Duration.ZERO, Users.ROW_TYPE);
  }

  private String table(boolean indexed) {
    String uri = dir.resolve("users").toString();
    Users.write(uri, ROWS, 500);
    if (indexed) {
      LanceScalarIndex.create(Users.local(uri), "id");
    }
    return uri;
  }

  private static RowKey key(TableLookup lookup, Object... values) {
    return lookup.keyOf(GenericRowData.of(values));
  }

  /** Every looked-up row as its values, by key; a key without rows maps to an empty list. */
  private static Map<List<Object>, List<List<Object>>> values(
      Map<RowKey, List<RowData>> found, Collection<RowKey> keys) {
    Map<List<Object>, List<List<Object>>> values = new TreeMap<>(Comparator.LISTS);
    for (RowKey key : keys) {
      List<List<Object>> rows = new ArrayList<>();
      for (RowData row : found.getOrDefault(key, List.of())) {
        rows.add(
            List.of(
                row.getLong(0),
                String.valueOf(row.getString(1)),
                row.isNullAt(2) ? "null" : row.getInt(2),
                String.valueOf(row.getString(3))));
      }
      rows.sort(Comparator.LISTS);
      values.put(List.of(key.toString()), rows);
    }
    return values;
  }

  /** The same from the generated rows: what every lookup must return. */
  private static List<List<Object>> expected(List<RowData> rows) {
    List<List<Object>> values = new ArrayList<>();
    for (RowData row : rows) {
      values.add(
          List.of(
              row.getLong(0),
              String.valueOf(row.getString(1)),
              row.isNullAt(2) ? "null" : row.getInt(2),
              String.valueOf(row.getString(3))));
    }
    values.sort(Comparator.LISTS);
    return values;
  }

  @ParameterizedTest(name = "scalar index: {0}")
  @ValueSource(booleans = {false, true})
  void keysFindExactlyTheirRowsInOneQueryPer128Keys(boolean indexed) throws Exception {
    String uri = table(indexed);
    // rows appended after the index: a fragment the index does not cover
    TestTables.append(uri, Users.ROW_TYPE, Users.rows(ROWS, ROWS + 300, 0), 300);
    Metrics metrics = new Metrics();
    try (TableLookup lookup = new TableLookup(spec(uri, List.of("id")), metrics)) {
      lookup.open();
      List<RowKey> keys = new ArrayList<>();
      LongStream.range(0, 150).forEach(i -> keys.add(key(lookup, i * 21))); // 0 .. 3129
      keys.add(key(lookup, -1L));
      keys.add(key(lookup, Long.MIN_VALUE)); // no Lance literal: looked up by a scan
      keys.add(key(lookup, Long.MAX_VALUE));
      Map<RowKey, List<RowData>> found = lookup.lookup(keys);

      for (int i = 0; i < 150; i++) {
        long id = i * 21L;
        assertThat(values(found, List.of(keys.get(i))).values())
            .as("id %d", id)
            .containsExactly(id < ROWS + 300 ? expected(List.of(Users.row(id, 0))) : List.of());
      }
      assertThat(found).doesNotContainKeys(keys.get(150), keys.get(151), keys.get(152));
      assertThat(metrics.count("lookupKeys")).isEqualTo(153);
      assertThat(metrics.count("lookupQueries")).as("153 keys, 128 per query").isEqualTo(2);
    }
  }

  @Test
  void aNullKeyColumnIsNoKey() {
    String uri = table(false);
    try (TableLookup lookup = new TableLookup(spec(uri, List.of("tenant", "id")), new Metrics())) {
      assertThat(lookup.keyOf(GenericRowData.of(null, 1L))).isNull();
      assertThat(lookup.keyOf(GenericRowData.of(StringData.fromString("t1"), null))).isNull();
    }
  }

  @ParameterizedTest(name = "scalar index: {0}")
  @ValueSource(booleans = {false, true})
  void aCompositeKeyFindsOnlyItsOwnRows(boolean indexed) {
    String uri = table(indexed);
    try (TableLookup lookup = new TableLookup(spec(uri, List.of("tenant", "id")), new Metrics())) {
      lookup.open();
      // tenant IN ('t1', 't2') AND id IN (1, 2, 4, 5) lets (t1, 4) and (t2, 5) through too
      List<RowKey> keys =
          List.of(
              key(lookup, StringData.fromString("t1"), 1L),
              key(lookup, StringData.fromString("t2"), 2L),
              key(lookup, StringData.fromString("t2"), 4L), // id 4 is tenant t1
              key(lookup, StringData.fromString("t0"), 5L)); // id 5 is tenant t2
      Map<RowKey, List<RowData>> found = lookup.lookup(keys);
      assertThat(found.keySet()).containsExactlyInAnyOrder(keys.get(0), keys.get(1));
      assertThat(values(found, List.of(keys.get(0))).values())
          .containsExactly(expected(List.of(Users.row(1, 0))));
      assertThat(values(found, List.of(keys.get(1))).values())
          .containsExactly(expected(List.of(Users.row(2, 0))));
    }
  }

  @Test
  void aKeyOnAnyColumnFindsEveryRowOfItAndWarnsOnceWithoutAnIndex() {
    String uri = table(true); // an index on id, none on region
    try (LogCapture logs = LogCapture.start();
        TableLookup lookup = new TableLookup(spec(uri, List.of("region")), new Metrics())) {
      lookup.open();
      List<RowKey> keys = List.of(key(lookup, 3), key(lookup, 4), key(lookup, 11));
      Map<RowKey, List<RowData>> found = lookup.lookup(keys);
      List<RowData> region3 = new ArrayList<>();
      for (RowData row : Users.rows(0, ROWS, 0)) {
        if (!row.isNullAt(2) && row.getInt(2) == 3) {
          region3.add(row);
        }
      }
      assertThat(region3).hasSize(ROWS / 10);
      assertThat(values(found, List.of(keys.get(0))).values()).containsExactly(expected(region3));
      assertThat(found).as("region 4 is NULL in every row").doesNotContainKeys(keys.get(1));
      assertThat(found).doesNotContainKeys(keys.get(2));
      lookup.lookup(keys);
      assertThat(logs.text())
          .containsOnlyOnce("none of the key columns has a scalar index")
          .contains("read the key columns of all " + ROWS + " rows")
          .contains("sys.create_scalar_index('<database>.<table>', 'region')");
    }
  }

  @Test
  void anIndexBuiltBeforeMostRowsWarnsOnceThatTheyAreScanned() {
    String uri = dir.resolve("users").toString();
    TestTables.create(uri, Users.ROW_TYPE, Map.of()); // empty, as the upsert sink indexes it
    LanceScalarIndex.create(Users.local(uri), "id");
    TestTables.append(uri, Users.ROW_TYPE, Users.rows(0, ROWS, 0), 1_000);
    try (LogCapture logs = LogCapture.start();
        TableLookup lookup = new TableLookup(spec(uri, List.of("id")), new Metrics())) {
      lookup.open();
      assertThat(lookup.lookup(List.of(key(lookup, 5L)))).hasSize(1);
      assertThat(logs.text())
          .containsOnlyOnce("do not cover the fragments appended since")
          .contains("read the key columns of " + ROWS + " of the " + ROWS + " rows")
          .contains("sys.create_scalar_index('<database>.<table>', 'id')");
    }
  }

  @Test
  void aPushedFilterAppliesToEveryLookup() {
    String uri = table(true);
    LookupSpec spec = spec(uri, List.of("id"), "tenant = 't1'", Duration.ZERO, Users.ROW_TYPE);
    try (TableLookup lookup = new TableLookup(spec, new Metrics())) {
      lookup.open();
      List<RowKey> keys = List.of(key(lookup, 1L), key(lookup, 2L), key(lookup, 4L));
      assertThat(lookup.lookup(keys).keySet()).containsExactlyInAnyOrder(keys.get(0), keys.get(2));
    }
  }

  @Test
  void aLookupReadsOneVersionAndMovesToTheNewestAfterTheRefreshInterval() throws Exception {
    String uri = table(true);
    LookupSpec pinned = spec(uri, List.of("id"), null, Duration.ZERO, Users.ROW_TYPE);
    LookupSpec following = spec(uri, List.of("id"), null, Duration.ofNanos(1), Users.ROW_TYPE);
    try (TableLookup stays = new TableLookup(pinned, new Metrics());
        TableLookup moves = new TableLookup(following, new Metrics())) {
      stays.open();
      moves.open();
      List<RowKey> keys = List.of(key(moves, 7L), key(moves, 8L), key(moves, 9L));
      assertThat(moves.lookup(keys)).hasSize(3);
      Users.delete(Users.local(uri), "id = 8");
      Users.mergeInsert(Users.local(uri), List.of(Users.row(9, 1)));
      assertThat(values(stays.lookup(keys), keys).values())
          .as("refresh off: the version it opened")
          .containsExactly(
              expected(List.of(Users.row(7, 0))),
              expected(List.of(Users.row(8, 0))),
              expected(List.of(Users.row(9, 0))));
      assertThat(values(moves.lookup(keys), keys).values())
          .as("the newest version: 8 deleted, 9 updated")
          .containsExactly(
              expected(List.of(Users.row(7, 0))), List.of(), expected(List.of(Users.row(9, 1))));
    }
  }

  @Test
  void aDroppedOrReplacedTableEndsTheLookupsNamingTheTable() throws Exception {
    String uri = table(false);
    LookupSpec following = spec(uri, List.of("id"), null, Duration.ofNanos(1), Users.ROW_TYPE);
    try (TableLookup lookup = new TableLookup(following, new Metrics())) {
      lookup.open();
      List<RowKey> keys = List.of(key(lookup, 7L));
      FileUtils.deleteDirectory(Path.of(uri).toFile());
      assertThatThrownBy(() -> lookup.lookup(keys))
          .isInstanceOf(PermanentDatasetException.class)
          .hasMessageContaining(uri)
          .hasMessageContaining("dropped or replaced")
          .hasMessageContaining("no table at the URI");
    }
    Users.write(uri, 10, 10);
    try (TableLookup lookup = new TableLookup(following, new Metrics())) {
      lookup.open();
      List<RowKey> keys = List.of(key(lookup, 7L));
      assertThat(lookup.lookup(keys)).hasSize(1);
      FileUtils.deleteDirectory(Path.of(uri).toFile());
      Users.write(uri, 10, 5); // a new table: versions of the same numbers, committed later
      assertThatThrownBy(() -> lookup.lookup(keys))
          .isInstanceOf(PermanentDatasetException.class)
          .hasMessageContaining(uri)
          .hasMessageContaining("dropped or replaced");
    }
  }

  @Test
  void aColumnAddedKeepsTheLookupsAndAJoinedColumnDroppedEndsThemNamingIt() throws Exception {
    String uri = table(false);
    LookupSpec following = spec(uri, List.of("id"), null, Duration.ofNanos(1), Users.ROW_TYPE);
    try (TableLookup lookup = new TableLookup(following, new Metrics())) {
      lookup.open();
      List<RowKey> keys = List.of(key(lookup, 7L));
      try (BufferAllocator allocator = new RootAllocator();
          Dataset dataset = Users.local(uri).open(allocator)) {
        dataset.addColumns(
            List.of(new Field("extra", FieldType.nullable(new ArrowType.Int(64, true)), null)));
      }
      assertThat(values(lookup.lookup(keys), keys).values())
          .as("a column added that the join does not read changes nothing")
          .containsExactly(expected(List.of(Users.row(7, 0))));
      try (BufferAllocator allocator = new RootAllocator();
          Dataset dataset = Users.local(uri).open(allocator)) {
        dataset.dropColumns(List.of("name"));
      }
      assertThatThrownBy(() -> lookup.lookup(keys))
          .isInstanceOf(PermanentDatasetException.class)
          .hasMessageContaining(uri)
          .hasMessageContaining("no longer has the columns")
          .hasMessageContaining("another client dropped column 'name'");
    }
  }

  /** Orders lists of values by their string forms. */
  private enum Comparator implements java.util.Comparator<List<?>> {
    LISTS;

    @Override
    public int compare(List<?> a, List<?> b) {
      return Objects.toString(a).compareTo(Objects.toString(b));
    }
  }
}
