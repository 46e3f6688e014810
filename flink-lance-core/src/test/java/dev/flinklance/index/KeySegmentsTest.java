package dev.flinklance.index;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The segments a key index's upkeep builds: new rows only, and few segments at a low cost. */
class KeySegmentsTest {

  @Test
  void unindexedFragmentsBecomeASegmentOnceTheyHoldEnoughRows() {
    List<Set<Integer>> segments = List.of(Set.of(0, 1));

    assertThat(KeySegments.plan(segments, Map.of(0, 50L, 1, 50L, 2, 5L), 10, 8).isEmpty())
        .as("5 unindexed rows")
        .isTrue();
    assertThat(KeySegments.plan(segments, Map.of(0, 50L, 1, 50L, 2, 5L, 3, 6L), 10, 8).builds())
        .as("11 unindexed rows: one segment over them alone")
        .containsExactly(List.of(2, 3));
  }

  @Test
  void removedFragmentsAreNeitherIndexedNorCounted() {
    // a compaction removed 1 and 7 (the second segment covers nothing live any more) and wrote 5
    List<Set<Integer>> segments = List.of(Set.of(0, 1), Set.of(7), Set.of(2));

    KeySegments plan = KeySegments.plan(segments, Map.of(0, 50L, 2, 500L, 5, 20L), 10, 2);

    assertThat(plan.builds()).as("two live segments and a new one: 3 > 2").hasSize(1);
    assertThat(plan.builds().get(0))
        .as("the new segment and the smallest live one rebuilt as one")
        .containsExactly(0, 5);
  }

  @Test
  void beyondTheLimitTheSmallestSegmentsAreRebuiltAsOne() {
    List<Set<Integer>> segments = List.of(Set.of(0), Set.of(1), Set.of(2), Set.of(3));
    Map<Integer, Long> rows = Map.of(0, 1_000L, 1, 100L, 2, 100L, 3, 100L, 4, 100L);

    KeySegments plan = KeySegments.plan(segments, rows, 100, 3);

    assertThat(plan.builds())
        .as("5 segments with the new one: the four of 100 rows as one, the big one kept")
        .containsExactly(List.of(1, 2, 3, 4));
  }

  @Test
  void aNewSegmentTooBigToMergeIsBuiltBesideTheRebuiltOnes() {
    List<Set<Integer>> segments = List.of(Set.of(0), Set.of(1), Set.of(2));
    Map<Integer, Long> rows = Map.of(0, 1_000L, 1, 10L, 2, 10L, 3, 500L);

    assertThat(KeySegments.plan(segments, rows, 100, 3).builds())
        .containsExactly(List.of(1, 2), List.of(3));
  }

  /**
   * A long run of appends: the segments stay within the limit and each row is built fewer times
   * than log2(table / new rows), not a number that grows with the table (rebuilding every segment
   * each time the limit is passed would build each row hundreds of times here).
   */
  @Test
  void eachRowIsRebuiltAboutLogarithmicallyOften() {
    List<Set<Integer>> segments = new ArrayList<>();
    Map<Integer, Long> rows = new TreeMap<>();
    rows.put(0, 1_000_000L);
    segments.add(Set.of(0));
    long built = 0;
    long appended = 0;
    int next = 1;
    for (int round = 0; round < 2_000; round++) {
      rows.put(next++, 100_000L);
      appended += 100_000;
      KeySegments plan = KeySegments.plan(segments, rows, 100_000, 8);
      for (List<Integer> build : plan.builds()) {
        segments.removeIf(segment -> segment.stream().anyMatch(build::contains));
        segments.add(new HashSet<>(build));
        built += build.stream().mapToLong(rows::get).sum();
      }
      assertThat(segments).as("segments after round %d", round).hasSizeLessThanOrEqualTo(8);
    }
    double rebuildsPerRow = (double) built / appended;
    assertThat(rebuildsPerRow)
        .as("rows built per row appended, 200M rows in segments of 100,000")
        .isLessThan(Math.log(2_000) / Math.log(2)); // 5.5 measured
  }
}
