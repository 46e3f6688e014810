package dev.flinklance.index;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.key.PrimaryKey;
import dev.flinklance.key.RowKey;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongFunction;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.CommitBuilder;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.Transaction;
import org.lance.WriteParams;
import org.lance.compaction.CompactionOptions;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;
import org.lance.operation.Append;

/**
 * Key lookups on real tables, through the BTree indexes and by scanning: both find exactly the rows
 * a full scan says hold the keys, for awkward values, composite keys, deleted rows, fragments the
 * index does not cover, and compacted stable-row-id tables.
 */
class KeyLookupTest {
  private static final RowType ROWS =
      (RowType)
          DataTypes.ROW(
                  DataTypes.FIELD("tenant", DataTypes.STRING().notNull()),
                  DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
                  DataTypes.FIELD("day", DataTypes.DATE().notNull()))
              .getLogicalType();
  private static final Schema SCHEMA =
      new Schema(
          List.of(
              Field.notNullable("tenant", ArrowType.Utf8.INSTANCE),
              Field.notNullable("id", new ArrowType.Int(64, true)),
              Field.notNullable("day", new ArrowType.Date(DateUnit.DAY))));
  private static final String[] TENANTS = {
    "plain", "it's", "back\\slash", "new\nline", "ünïcödé", "", "100%_x", "`tick`"
  };
  private static final int ROWS_PER_FRAGMENT = 10_000;

  @TempDir Path dir;
  private BufferAllocator allocator;
  private String uri;

  @BeforeEach
  void open() {
    allocator = new RootAllocator();
    uri = dir.resolve("t").toString();
  }

  @AfterEach
  void close() {
    allocator.close();
  }

  @Test
  void aFewKeysAreFoundThroughTheIndexExactlyAsByAScan() throws Exception {
    PrimaryKey key = PrimaryKey.of(ROWS, List.of("id"), uri);
    try (Dataset dataset = table(false, 5, i -> i)) {
      KeyIndex.ensure(dataset, key);
      dataset.checkoutLatest();
      dataset.delete("id IN (7, 10003)");
      dataset.checkoutLatest();
      List<RowKey> keys = keys(key, 7, 8, 9999, 10003, 25000, 49999, 123_456, Long.MAX_VALUE, -1);

      KeyLookup.Found found = KeyLookup.find(dataset, key, keys);

      assertThat(found.indexedKeys()).as("a few keys in 50,000 indexed rows: the index").isTrue();
      assertThat(found.scannedRows()).isZero();
      assertThat(found.offsets()).isEqualTo(expected(dataset, key, keys));
      assertThat(found.offsets())
          .isEqualTo(Map.of(0, List.of(8, 9999), 2, List.of(5000), 4, List.of(9999)));
      assertThat(found.rows()).isEqualTo(4);
    }
  }

  @Test
  void manyKeysAreFoundByAScanAsThroughTheIndex() throws Exception {
    PrimaryKey key = PrimaryKey.of(ROWS, List.of("id"), uri);
    try (Dataset dataset = table(false, 5, i -> i * 3)) {
      KeyIndex.ensure(dataset, key);
      dataset.checkoutLatest();
      long[] ids = new long[2_000];
      for (int i = 0; i < ids.length; i++) {
        ids[i] = i * 5L;
      }
      List<RowKey> keys = keys(key, ids);

      KeyLookup.Found found = KeyLookup.find(dataset, key, keys);

      assertThat(found.indexedKeys()).as("2000 keys in 50,000 rows: a scan").isFalse();
      assertThat(found.scannedRows()).isEqualTo(50_000);
      assertThat(found.offsets()).isEqualTo(expected(dataset, key, keys));
      assertThat(found.rows()).as("the multiples of 15 up to 9995").isEqualTo(667);
    }
  }

  @Test
  void rowsAppendedAfterTheIndexWasBuiltAreFoundByAScanOfTheirFragments() throws Exception {
    PrimaryKey key = PrimaryKey.of(ROWS, List.of("id"), uri);
    try (Dataset dataset = table(false, 5, i -> i)) {
      KeyIndex.ensure(dataset, key);
      dataset.checkoutLatest();
      append(dataset, 2, i -> 100_000 + i);
      dataset.checkoutLatest();
      List<RowKey> keys = keys(key, 5, 100_005, 119_999);

      KeyLookup.Found found = KeyLookup.find(dataset, key, keys);

      assertThat(found.indexedKeys()).isTrue();
      assertThat(found.scannedRows()).as("the two unindexed fragments").isEqualTo(20_000);
      assertThat(found.offsets()).isEqualTo(expected(dataset, key, keys));
      assertThat(found.rows()).isEqualTo(3);
    }
  }

  @Test
  void compositeKeysOfAwkwardStringsAndDatesMatchExactly() throws Exception {
    PrimaryKey key = PrimaryKey.of(ROWS, List.of("tenant", "id", "day"), uri);
    try (Dataset dataset = table(false, 5, i -> i % 500)) {
      KeyIndex.ensure(dataset, key);
      dataset.checkoutLatest();
      List<RowKey> keys = new ArrayList<>();
      for (int i = 0; i < TENANTS.length; i++) {
        // the tenant and the id of a row, but the day of another: no match
        keys.add(rowKey(key, TENANTS[i], i, i % 3 == 0 ? 12_345 : dayOf(i)));
      }
      keys.add(rowKey(key, TENANTS[2], 9, dayOf(9))); // tenant and id never together
      keys.add(rowKey(key, "plain2", 0, dayOf(0)));

      KeyLookup.Found throughIndex = KeyLookup.find(dataset, key, keys);

      assertThat(throughIndex.indexedKeys()).isTrue();
      Map<Integer, List<Integer>> expected = expected(dataset, key, keys);
      assertThat(throughIndex.offsets()).isEqualTo(expected);
      // rows i and i + 7000 of each fragment hold the tenant, id and day of key i, for i = 1, 2,
      // 4, 5, 7 (the offset is i modulo 500, 8 and 7)
      assertThat(throughIndex.rows()).isEqualTo(5 * 5 * 2);
      KeyIndex.of(dataset, key).values().forEach(index -> dataset.dropIndex(index.name()));
      dataset.checkoutLatest();
      KeyLookup.Found byScan = KeyLookup.find(dataset, key, keys);
      assertThat(byScan.indexedKeys()).isFalse();
      assertThat(byScan.offsets()).isEqualTo(expected);
    }
  }

  /** Strings that Lance's JNI layer cannot take as they are (NUL, beyond the BMP) still probe. */
  @Test
  void stringKeysWithNulAndEmojiAreLookedUpThroughTheIndex() throws Exception {
    PrimaryKey key = PrimaryKey.of(ROWS, List.of("tenant"), uri);
    try (Dataset dataset = table(false, 2, i -> i)) {
      KeyIndex.ensure(dataset, key);
      dataset.checkoutLatest();
      List<RowKey> keys = new ArrayList<>();
      for (String tenant : List.of("nul\0x", "emoji \uD83D\uDE00", "it's")) {
        keys.add(key.keyOf(GenericRowData.of(StringData.fromString(tenant), 0L, 0)));
      }

      KeyLookup.Found found = KeyLookup.find(dataset, key, keys);

      assertThat(found.indexedKeys()).isTrue();
      assertThat(found.offsets()).isEqualTo(expected(dataset, key, keys));
      assertThat(found.rows()).isEqualTo(2 * ROWS_PER_FRAGMENT / TENANTS.length);
    }
  }

  @Test
  void aKeyLanceCannotWriteAsALiteralIsFoundByAScan() throws Exception {
    PrimaryKey key = PrimaryKey.of(ROWS, List.of("id"), uri);
    try (Dataset dataset = table(false, 5, i -> i == 1234 ? Long.MIN_VALUE : i)) {
      KeyIndex.ensure(dataset, key);
      dataset.checkoutLatest();
      List<RowKey> keys = keys(key, Long.MIN_VALUE, 17);

      KeyLookup.Found found = KeyLookup.find(dataset, key, keys);

      assertThat(found.indexedKeys()).isFalse();
      assertThat(found.offsets()).isEqualTo(Map.of(0, List.of(17, 1234)));
    }
  }

  /**
   * On a stable-row-id table the index holds row ids; a compaction that materialises deletions
   * leaves the deleted rows' entries in it. They must not come back as matches.
   */
  @Test
  void deletedRowsOfACompactedStableRowIdTableAreNotFound() throws Exception {
    PrimaryKey key = PrimaryKey.of(ROWS, List.of("id"), uri);
    try (Dataset dataset = table(true, 4, i -> i)) {
      KeyIndex.ensure(dataset, key);
      dataset.checkoutLatest();
      dataset.delete("id >= 100 AND id < 400");
      dataset.checkoutLatest();
      dataset.compact(
          CompactionOptions.builder()
              .withTargetRowsPerFragment(100_000)
              .withMaterializeDeletionsThreshold(0.1f)
              .build());
      dataset.checkoutLatest();
      assertThat(dataset.getFragments()).hasSize(1);
      assertThat(dataset.getFragments().get(0).metadata().getDeletionFile()).isNull();
      List<RowKey> keys = keys(key, 50, 150, 399, 400, 39_999);

      KeyLookup.Found found = KeyLookup.find(dataset, key, keys);

      assertThat(found.offsets()).isEqualTo(expected(dataset, key, keys));
      assertThat(found.rows()).isEqualTo(3);
    }
  }

  private static long dayOf(long i) {
    return 18_000 + i % 7;
  }

  /**
   * A table of {@code fragments} fragments; row i has id {@code ids(i)}, tenant {@code TENANTS[i %
   * 8]} and day {@code dayOf(i)} (i counting from 0 in each fragment).
   */
  private Dataset table(boolean stableRowIds, int fragments, LongFunction<Long> ids) {
    Dataset dataset =
        Dataset.create(
            allocator,
            uri,
            SCHEMA,
            new WriteParams.Builder().withEnableStableRowIds(stableRowIds).build());
    for (int f = 0; f < fragments; f++) {
      long first = (long) f * ROWS_PER_FRAGMENT;
      append(dataset, 1, i -> ids.apply(first + i));
      dataset.checkoutLatest();
    }
    return dataset;
  }

  private void append(Dataset dataset, int fragments, LongFunction<Long> ids) {
    List<FragmentMetadata> written = new ArrayList<>();
    for (int f = 0; f < fragments; f++) {
      try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
        VarCharVector tenant = (VarCharVector) root.getVector("tenant");
        BigIntVector id = (BigIntVector) root.getVector("id");
        DateDayVector day = (DateDayVector) root.getVector("day");
        for (int i = 0; i < ROWS_PER_FRAGMENT; i++) {
          long n = (long) f * ROWS_PER_FRAGMENT + i;
          tenant.setSafe(i, TENANTS[i % TENANTS.length].getBytes(StandardCharsets.UTF_8));
          id.setSafe(i, ids.apply(n));
          day.setSafe(i, (int) dayOf(i));
        }
        root.setRowCount(ROWS_PER_FRAGMENT);
        written.addAll(Fragment.create(uri, allocator, root, new WriteParams.Builder().build()));
      }
    }
    try (Transaction transaction =
            new Transaction.Builder()
                .readVersion(dataset.version())
                .operation(Append.builder().fragments(written).build())
                .build();
        Dataset ignored = new CommitBuilder(dataset).execute(transaction)) {
      // appended
    }
  }

  private static List<RowKey> keys(PrimaryKey key, long... ids) {
    List<RowKey> keys = new ArrayList<>();
    for (long id : ids) {
      keys.add(key.keyOf(GenericRowData.of(StringData.fromString("x"), id, 0)));
    }
    return keys;
  }

  private static RowKey rowKey(PrimaryKey key, String tenant, long id, long day) {
    return key.keyOf(GenericRowData.of(StringData.fromString(tenant), id, (int) day));
  }

  /** Where a full scan, matching in the test, finds the keys. */
  private static Map<Integer, List<Integer>> expected(
      Dataset dataset, PrimaryKey key, List<RowKey> keys) throws Exception {
    Map<RowKey, Boolean> wanted = new HashMap<>();
    keys.forEach(k -> wanted.put(k, true));
    Map<Integer, List<Integer>> offsets = new TreeMap<>();
    try (LanceScanner scanner =
            dataset.newScan(
                new ScanOptions.Builder()
                    .columns(List.of("tenant", "id", "day"))
                    .withRowAddress(true)
                    .build());
        ArrowReader reader = scanner.scanBatches()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot batch = reader.getVectorSchemaRoot();
        for (int row = 0; row < batch.getRowCount(); row++) {
          GenericRowData values =
              GenericRowData.of(
                  StringData.fromString(
                      new String(
                          ((VarCharVector) batch.getVector("tenant")).get(row),
                          StandardCharsets.UTF_8)),
                  ((BigIntVector) batch.getVector("id")).get(row),
                  ((DateDayVector) batch.getVector("day")).get(row));
          if (wanted.containsKey(key.keyOf(values))) {
            long address = ((UInt8Vector) batch.getVector("_rowaddr")).get(row);
            offsets
                .computeIfAbsent((int) (address >>> 32), f -> new ArrayList<>())
                .add((int) address);
          }
        }
      }
    }
    offsets.values().forEach(list -> list.sort(null));
    return offsets;
  }
}
