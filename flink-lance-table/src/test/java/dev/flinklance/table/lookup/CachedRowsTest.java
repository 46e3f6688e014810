package dev.flinklance.table.lookup;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;

/**
 * The FULL cache's rows: every lookup returns exactly the rows whose key columns equal the key (a
 * reference map's answer), for unique and repeated keys, composite keys of short and long strings,
 * rows larger than a page, and rows taken by several loader threads; NULL and NaN keys match
 * nothing, {@code -0.0} finds {@code 0.0}; and the rows stay compact.
 */
class CachedRowsTest {
  private static final RowType FEATURES =
      (RowType)
          DataTypes.ROW(
                  DataTypes.FIELD("id", DataTypes.BIGINT()),
                  DataTypes.FIELD("tier", DataTypes.STRING()),
                  DataTypes.FIELD("score", DataTypes.DOUBLE()),
                  DataTypes.FIELD("embedding", DataTypes.ARRAY(DataTypes.FLOAT())))
              .getLogicalType();
  private static final int[] BY_ID = {0};
  private static final int[] BY_TIER_AND_SCORE = {1, 2};

  private static GenericRowData feature(Long id, String tier, Double score, int floats) {
    Float[] embedding = new Float[floats];
    for (int i = 0; i < floats; i++) {
      embedding[i] = (float) (i * 0.5);
    }
    return GenericRowData.of(
        id,
        tier == null ? null : StringData.fromString(tier),
        score,
        new GenericArrayData(embedding));
  }

  /** Rows compared in Flink's binary form: equal content, whatever the row class. */
  private static final RowDataSerializer ROWS = new RowDataSerializer(FEATURES);

  private static List<String> contents(List<RowData> rows) {
    List<String> contents = new ArrayList<>();
    for (RowData row : rows) {
      RowData copy = ROWS.copy(row);
      contents.add(
          copy.getLong(0)
              + "/"
              + copy.getString(1)
              + "/"
              + copy.getDouble(2)
              + "/"
              + copy.getArray(3).size());
    }
    contents.sort(null);
    return contents;
  }

  private static CachedRows build(int[] key, List<List<GenericRowData>> perThread) {
    List<CachedRows.Builder> builders = new ArrayList<>();
    for (List<GenericRowData> rows : perThread) {
      CachedRows.Builder builder = new CachedRows.Builder(FEATURES, key);
      rows.forEach(builder::add);
      builders.add(builder);
    }
    return CachedRows.of(FEATURES, key, builders);
  }

  @Test
  void everyKeyFindsExactlyItsRowsAsAReferenceMapDoes() {
    Random random = new Random(42);
    Map<String, List<RowData>> reference = new HashMap<>();
    List<List<GenericRowData>> threads = List.of(new ArrayList<>(), new ArrayList<>());
    for (int i = 0; i < 50_000; i++) {
      String tier = "tier-" + random.nextInt(40) + (random.nextBoolean() ? "-long-enough" : "");
      double score = random.nextInt(50) / 2.0;
      GenericRowData row = feature((long) i, tier, score, 16);
      threads.get(random.nextInt(2)).add(row);
      reference.computeIfAbsent(tier + "|" + score, k -> new ArrayList<>()).add(row);
    }
    CachedRows rows = build(BY_TIER_AND_SCORE, threads);
    CachedRows.Reader reader = rows.reader();
    assertThat(rows.rows()).isEqualTo(50_000);
    for (int tier = 0; tier < 41; tier++) {
      for (String suffix : List.of("", "-long-enough")) {
        for (int half = 0; half < 52; half++) {
          String name = "tier-" + tier + suffix;
          double score = half / 2.0;
          List<RowData> expected = reference.getOrDefault(name + "|" + score, List.of());
          assertThat(contents(reader.get(GenericRowData.of(StringData.fromString(name), score))))
              .as("tier %s score %s", name, score)
              .isEqualTo(contents(expected));
        }
      }
    }
  }

  @Test
  void uniqueKeysFromSeveralThreadsAndRowsLargerThanAPage() {
    List<GenericRowData> first = new ArrayList<>();
    List<GenericRowData> second = new ArrayList<>();
    for (long id = 0; id < 20_000; id++) {
      (id % 3 == 0 ? first : second).add(feature(id, "t" + id, id * 1.5, 16));
    }
    int hugeFloats = CachedRows.PAGE_SIZE / 4 + 1000; // one row, more than a page
    second.add(feature(-1L, "huge", 0.0, hugeFloats));
    CachedRows rows = build(BY_ID, List.of(first, second));
    CachedRows.Reader reader = rows.reader();
    for (long id = 0; id < 20_000; id++) {
      List<RowData> found = reader.get(GenericRowData.of(id));
      assertThat(found).hasSize(1);
      assertThat(found.get(0).getLong(0)).isEqualTo(id);
      assertThat(found.get(0).getString(1).toString()).isEqualTo("t" + id);
      assertThat(found.get(0).getDouble(2)).isEqualTo(id * 1.5);
    }
    List<RowData> huge = reader.get(GenericRowData.of(-1L));
    assertThat(huge).hasSize(1);
    assertThat(huge.get(0).getArray(3).size()).isEqualTo(hugeFloats);
    assertThat(huge.get(0).getArray(3).getFloat(hugeFloats - 1)).isEqualTo((hugeFloats - 1) * 0.5f);
    assertThat(reader.get(GenericRowData.of(20_000L))).isEmpty();
  }

  @Test
  void rowsReturnedEarlierStayValidAfterMoreLookups() {
    CachedRows rows =
        build(BY_ID, List.of(List.of(feature(1L, "one", 1.0, 4), feature(2L, "two", 2.0, 4))));
    CachedRows.Reader reader = rows.reader();
    RowData one = reader.get(GenericRowData.of(1L)).get(0);
    reader.get(GenericRowData.of(2L));
    assertThat(one.getString(1).toString()).isEqualTo("one");
  }

  @Test
  void nullKeysMatchNothing() {
    CachedRows rows =
        build(
            BY_TIER_AND_SCORE,
            List.of(
                List.of(
                    feature(1L, null, 1.0, 4),
                    feature(2L, "a", null, 4),
                    feature(3L, "a", 1.0, 4))));
    CachedRows.Reader reader = rows.reader();
    assertThat(rows.rows()).as("rows with a NULL key column cannot match").isEqualTo(1);
    assertThat(reader.get(GenericRowData.of(null, 1.0))).isEmpty();
    assertThat(reader.get(GenericRowData.of(StringData.fromString("a"), null))).isEmpty();
    assertThat(reader.get(GenericRowData.of(StringData.fromString("a"), 1.0))).hasSize(1);
  }

  /** As SQL's {@code =}: {@code -0.0 = 0.0}, and NaN equals nothing, itself included. */
  @Test
  void floatingKeysCompareAsSqlEquals() {
    CachedRows rows =
        build(
            BY_TIER_AND_SCORE,
            List.of(List.of(feature(1L, "a", 0.0, 4), feature(2L, "a", Double.NaN, 4))));
    CachedRows.Reader reader = rows.reader();
    StringData a = StringData.fromString("a");
    assertThat(reader.get(GenericRowData.of(a, -0.0))).hasSize(1);
    assertThat(reader.get(GenericRowData.of(a, 0.0))).hasSize(1);
    assertThat(reader.get(GenericRowData.of(a, Double.NaN))).isEmpty();
    assertThat(rows.rows()).isEqualTo(1);
  }

  @Test
  void anEmptyCacheMatchesNothing() {
    CachedRows rows = build(BY_ID, List.of(List.of())); // a table without rows
    assertThat(rows.reader().get(GenericRowData.of(1L))).isEmpty();
    assertThat(rows.rows()).isZero();
  }

  /**
   * Issue 33: the cache within 2x of the row's Lance size. A feature row (BIGINT, short STRING,
   * DOUBLE, 16 FLOATs) is 8 + 8 + 8 + 64 = 88 bytes of values in Lance; Flink's own FULL cache took
   * about 670 bytes a row on the heap.
   */
  @Test
  void aFeatureRowTakesLessThanTwiceItsValuesBytes() {
    List<GenericRowData> all = new ArrayList<>();
    for (long id = 0; id < 100_000; id++) {
      all.add(feature(id, "tier" + id % 3, id * 0.1, 16));
    }
    CachedRows rows = build(BY_ID, List.of(all));
    assertThat(rows.bytes() / (double) rows.rows()).isLessThan(2 * 88.0);
  }
}
