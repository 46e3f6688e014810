package dev.flinklance.key;

import java.util.Collection;
import org.apache.flink.annotation.Internal;

/**
 * The integer values of a set of single-column keys, for matching a scanned key column row by row
 * without boxing: a commit's lookup matches every row of the table against it (profiled, the boxed
 * {@code HashSet<Long>} took a third of the committer's CPU). Open addressing with linear probing,
 * at most half full, behind a one-hash filter of at most 16 KB that stays in the CPU's first-level
 * cache and answers most values of a scan (which hold no wanted key) alone; no primitive collection
 * library is on the connector's classpath.
 */
@Internal
final class LongKeySet {
  private static final long EMPTY = 0;

  private static final int MAX_FILTER_BITS_LOG = 17;

  private final long[] slots;
  private final int mask;
  private final boolean hasZero;
  private final long[] filter;
  private final int filterShift;

  LongKeySet(Collection<Long> values) {
    int capacity = Integer.highestOneBit(Math.max(2, values.size()) * 2 - 1) << 1;
    slots = new long[capacity];
    mask = capacity - 1;
    int filterBitsLog = Math.min(MAX_FILTER_BITS_LOG, Integer.numberOfTrailingZeros(capacity) + 3);
    filter = new long[Math.max(1, (1 << filterBitsLog) >>> 6)];
    filterShift = 64 - filterBitsLog;
    boolean zero = false;
    for (long value : values) {
      if (value == EMPTY) {
        zero = true;
      } else {
        insert(value);
        int bit = filterBit(value);
        filter[bit >>> 6] |= 1L << bit;
      }
    }
    hasZero = zero;
  }

  /** Fibonacci hashing: the top bits of the product, unrelated to the slots' hash. */
  private int filterBit(long value) {
    return (int) ((value * 0x9E3779B97F4A7C15L) >>> filterShift);
  }

  private void insert(long value) {
    int slot = slotOf(value);
    while (slots[slot] != EMPTY) {
      if (slots[slot] == value) {
        return;
      }
      slot = (slot + 1) & mask;
    }
    slots[slot] = value;
  }

  boolean contains(long value) {
    if (value == EMPTY) {
      return hasZero;
    }
    int bit = filterBit(value);
    if ((filter[bit >>> 6] & (1L << bit)) == 0) {
      return false;
    }
    int slot = slotOf(value);
    long present;
    while ((present = slots[slot]) != EMPTY) {
      if (present == value) {
        return true;
      }
      slot = (slot + 1) & mask;
    }
    return false;
  }

  /** Spreads the bits (Murmur3's finalizer), so that sequential keys do not cluster. */
  private int slotOf(long value) {
    long h = value;
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb9fe1a85ec53L;
    h ^= h >>> 33;
    return (int) h & mask;
  }
}
