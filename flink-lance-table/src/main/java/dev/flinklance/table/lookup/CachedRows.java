package dev.flinklance.table.lookup;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;

/**
 * The rows of one FULL cache load, compact: each row in Flink's binary row format, packed into
 * pages of 1 MB (a larger row has a page of its own), and one open-addressing index of the rows'
 * key hashes and addresses, 16 bytes a row at three quarters full. Flink's own FULL cache keeps a
 * {@code GenericRowData} of boxed fields per row in a hash map: about 670 bytes a row of 4 columns,
 * where this keeps about 140. Immutable once built, so the tasks of a TaskManager share it and a
 * reload builds the next one beside it; each task reads it through a {@link Reader} of its own.
 *
 * <p>Keys are compared in Flink's binary form of the key columns, so every column type is a key; a
 * row or a lookup with a NULL or NaN key column matches nothing, and {@code -0.0} equals {@code
 * 0.0}, as with {@code =}.
 */
final class CachedRows {
  static final int PAGE_SIZE = 1 << 20;
  private static final int LENGTH_BYTES = Integer.BYTES;
  private static final long NO_ROW = 0; // addresses are stored + 1

  private final RowType rowType;
  private final int[] keyFields;
  private final RowType keyType;
  private final MemorySegment[] pages;
  private final long[] slots;
  private final int[] hashes;
  private final long rows;
  private final long bytes;

  private CachedRows(
      RowType rowType,
      int[] keyFields,
      RowType keyType,
      MemorySegment[] pages,
      long[] slots,
      int[] hashes,
      long rows,
      long bytes) {
    this.rowType = rowType;
    this.keyFields = keyFields;
    this.keyType = keyType;
    this.pages = pages;
    this.slots = slots;
    this.hashes = hashes;
    this.rows = rows;
    this.bytes = bytes;
  }

  /** The rows {@code builders} took, indexed by key; the builders are spent. */
  static CachedRows of(RowType rowType, int[] keyFields, List<Builder> builders) {
    List<byte[]> pages = new ArrayList<>();
    long count = 0;
    long bytes = 0;
    for (Builder builder : builders) {
      builder.finishPage();
      count += builder.count;
      bytes += builder.bytes;
    }
    if (count > Integer.MAX_VALUE / 2) {
      throw new IllegalArgumentException(
          "a FULL lookup cache holds at most " + Integer.MAX_VALUE / 2 + " rows, got " + count);
    }
    int capacity = Math.max(16, (int) (count * 4 / 3) + 1);
    long[] slots = new long[capacity];
    int[] hashes = new int[capacity];
    for (Builder builder : builders) {
      long pageBase = pages.size();
      pages.addAll(builder.pages);
      for (int i = 0; i < builder.count; i++) {
        long address = builder.addresses[i] + (pageBase << 32);
        int hash = builder.hashes[i];
        int slot = home(hash, capacity);
        while (slots[slot] != NO_ROW) {
          slot = slot + 1 == capacity ? 0 : slot + 1;
        }
        slots[slot] = address + 1;
        hashes[slot] = hash;
      }
    }
    MemorySegment[] segments =
        pages.stream().map(MemorySegmentFactory::wrap).toArray(MemorySegment[]::new);
    long heap = bytes + (long) capacity * (Long.BYTES + Integer.BYTES);
    return new CachedRows(
        rowType, keyFields, keyType(rowType, keyFields), segments, slots, hashes, count, heap);
  }

  long rows() {
    return rows;
  }

  /** The heap this cache holds: its pages and its index. */
  long bytes() {
    return bytes;
  }

  /** The slot a hash's probe starts at: the high bits of a mixed hash, scaled to the capacity. */
  private static int home(int hash, int capacity) {
    return (int) (((mix(hash) & 0xFFFFFFFFL) * capacity) >>> 32);
  }

  /** Murmur3's finalizer: BinaryRowData's hash of a small key has few distinct high bits. */
  private static int mix(int hash) {
    int h = hash;
    h ^= h >>> 16;
    h *= 0x85EBCA6B;
    h ^= h >>> 13;
    h *= 0xC2B2AE35;
    h ^= h >>> 16;
    return h;
  }

  private static RowType keyType(RowType rowType, int[] keyFields) {
    return new RowType(Arrays.stream(keyFields).mapToObj(i -> rowType.getFields().get(i)).toList());
  }

  /**
   * The binary form of a key row's columns, or null if one is NULL or NaN: SQL's {@code =} matches
   * neither. {@code -0.0} is taken as {@code 0.0}, which {@code =} finds equal.
   */
  private static final class KeyBinary {
    private final RowData.FieldGetter[] getters;
    private final boolean[] floating;
    private final RowDataSerializer serializer;
    private final GenericRowData key;

    /**
     * @param fields where the key's columns are in the rows given
     */
    KeyBinary(RowType rowType, int[] fields, RowType keyType) {
      this.getters = new RowData.FieldGetter[fields.length];
      this.floating = new boolean[fields.length];
      for (int i = 0; i < fields.length; i++) {
        LogicalTypeRoot root = rowType.getTypeAt(fields[i]).getTypeRoot();
        getters[i] = RowData.createFieldGetter(rowType.getTypeAt(fields[i]), fields[i]);
        floating[i] = root == LogicalTypeRoot.FLOAT || root == LogicalTypeRoot.DOUBLE;
      }
      this.serializer = new RowDataSerializer(keyType);
      this.key = new GenericRowData(fields.length);
    }

    /** Valid until the next call. */
    BinaryRowData of(RowData row) {
      for (int i = 0; i < getters.length; i++) {
        Object value = getters[i].getFieldOrNull(row);
        if (floating[i] && value != null) {
          value = comparable(value);
        }
        if (value == null) {
          return null;
        }
        key.setField(i, value);
      }
      return serializer.toBinaryRow(key);
    }

    private static Object comparable(Object value) {
      if (value instanceof Double d) {
        return d.isNaN() ? null : d == 0.0 ? (Object) 0.0d : d;
      }
      Float f = (Float) value;
      return f.isNaN() ? null : f == 0.0f ? (Object) 0.0f : f;
    }
  }

  /** Takes the rows of one loader thread into pages of its own. */
  static final class Builder {
    private final RowDataSerializer rowSerializer;
    private final KeyBinary keys;
    private final List<byte[]> pages = new ArrayList<>();
    private byte[] page;
    private MemorySegment pageSegment;
    private int used;
    private long[] addresses = new long[1024];
    private int[] hashes = new int[1024];
    private int count;
    private long bytes;

    Builder(RowType rowType, int[] keyFields) {
      this.rowSerializer = new RowDataSerializer(rowType);
      this.keys = new KeyBinary(rowType, keyFields, keyType(rowType, keyFields));
    }

    /** Copies {@code row} in; a row with a NULL key column is left out: no lookup matches it. */
    void add(RowData row) {
      BinaryRowData key = keys.of(row);
      if (key == null) {
        return;
      }
      int hash = key.hashCode();
      BinaryRowData binary = rowSerializer.toBinaryRow(row);
      int size = binary.getSizeInBytes();
      int needed = LENGTH_BYTES + size;
      if (page == null || used + needed > page.length) {
        finishPage();
        page = new byte[Math.max(PAGE_SIZE, needed)];
        pageSegment = MemorySegmentFactory.wrap(page);
        used = 0;
      }
      pageSegment.putInt(used, size);
      BinarySegmentUtils.copyToBytes(
          binary.getSegments(), binary.getOffset(), page, used + LENGTH_BYTES, size);
      if (count == addresses.length) {
        addresses = Arrays.copyOf(addresses, count * 2);
        hashes = Arrays.copyOf(hashes, count * 2);
      }
      addresses[count] = ((long) pages.size() << 32) | used;
      hashes[count] = hash;
      count++;
      used += needed;
    }

    private void finishPage() {
      if (page != null) {
        byte[] kept = used == page.length ? page : Arrays.copyOf(page, used);
        pages.add(kept);
        bytes += kept.length;
        page = null;
        pageSegment = null;
      }
    }
  }

  /** One task's lookups in the cache; not thread-safe. */
  Reader reader() {
    return new Reader();
  }

  final class Reader {
    private final KeyBinary probeKeys;
    private final KeyBinary rowKeys;
    private final BinaryRowData candidate;

    private Reader() {
      int[] all = new int[keyFields.length];
      Arrays.setAll(all, i -> i);
      this.probeKeys = new KeyBinary(keyType, all, keyType);
      this.rowKeys = new KeyBinary(rowType, keyFields, keyType);
      this.candidate = new BinaryRowData(rowType.getFieldCount());
    }

    /**
     * The rows whose key columns equal the key row's (the join's key columns in key order), each a
     * row of its own that stays valid.
     */
    List<RowData> get(RowData keyRow) {
      BinaryRowData key = probeKeys.of(keyRow);
      if (key == null || rows == 0) {
        return List.of();
      }
      int hash = key.hashCode();
      List<RowData> found = List.of();
      int capacity = slots.length;
      for (int slot = home(hash, capacity);
          slots[slot] != NO_ROW;
          slot = slot + 1 == capacity ? 0 : slot + 1) {
        if (hashes[slot] != hash) {
          continue;
        }
        long address = slots[slot] - 1;
        MemorySegment page = pages[(int) (address >>> 32)];
        int offset = (int) address;
        int size = page.getInt(offset);
        candidate.pointTo(page, offset + LENGTH_BYTES, size);
        if (key.equals(rowKeys.of(candidate))) {
          BinaryRowData row = new BinaryRowData(rowType.getFieldCount());
          row.pointTo(page, offset + LENGTH_BYTES, size);
          if (found.isEmpty()) {
            found = List.of(row);
          } else {
            List<RowData> more = new ArrayList<>(found);
            more.add(row);
            found = more;
          }
        }
      }
      return found;
    }
  }
}
