package dev.flinklance.source.reader;

import java.util.Arrays;

/** A set of longs as a sorted array: 8 bytes a key, built once, then only looked up. */
final class SortedLongs {
  private long[] values = new long[16];
  private int size;
  private boolean sorted = true;

  void add(long value) {
    if (size == values.length) {
      values = Arrays.copyOf(values, size * 2);
    }
    values[size++] = value;
    sorted = false;
  }

  boolean contains(long value) {
    if (!sorted) {
      Arrays.sort(values, 0, size);
      sorted = true;
    }
    return Arrays.binarySearch(values, 0, size, value) >= 0;
  }
}
