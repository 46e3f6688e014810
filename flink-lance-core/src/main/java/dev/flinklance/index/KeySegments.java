package dev.flinklance.index;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The segments to build so that a key index keeps up with its table at a cost that follows the rows
 * appended, not the table's size. Lance (7.0.0) rewrites a whole BTree to add rows to it ({@code
 * optimizeIndices}), about 60 ns a row: a minute at a billion rows. A segment built over only the
 * unindexed fragments and committed beside the others costs what those fragments hold. Every
 * segment is one more BTree each lookup consults, and Lance's compaction does not merge fragments
 * of different segments, so once there are more than {@code maxSegments} the smallest are rebuilt
 * as one (size-tiered: each row is rebuilt about log(table / new rows) times over its life).
 *
 * @param builds the fragments of each segment to build (ascending ids); a build that takes in
 *     fragments of existing segments replaces them
 */
record KeySegments(List<List<Integer>> builds) {

  /** A segment as it stands or as it would be built. */
  private record Group(List<Integer> fragments, long rows) {}

  boolean isEmpty() {
    return builds.isEmpty();
  }

  /**
   * @param segments each segment's fragments (may name removed fragments)
   * @param liveRows the rows of each fragment of the table version
   * @param minNewRows unindexed rows that make a new segment
   * @param maxSegments segments kept before the smallest are rebuilt as one
   */
  static KeySegments plan(
      List<Set<Integer>> segments, Map<Integer, Long> liveRows, long minNewRows, int maxSegments) {
    List<Group> groups = new ArrayList<>();
    Set<Integer> indexed = new HashSet<>();
    for (Set<Integer> segment : segments) {
      List<Integer> live = segment.stream().filter(liveRows::containsKey).sorted().toList();
      if (!live.isEmpty()) {
        indexed.addAll(live);
        groups.add(new Group(live, rows(live, liveRows)));
      }
    }
    List<Integer> unindexed =
        liveRows.keySet().stream().filter(id -> !indexed.contains(id)).sorted().toList();
    long unindexedRows = rows(unindexed, liveRows);
    Group added = unindexedRows >= minNewRows ? new Group(unindexed, unindexedRows) : null;
    if (added != null) {
      groups.add(added);
    }
    List<List<Integer>> builds = new ArrayList<>();
    if (groups.size() > maxSegments) {
      groups.sort(Comparator.comparingLong(Group::rows));
      int merged = groups.size() - maxSegments + 1;
      long mergedRows = groups.subList(0, merged).stream().mapToLong(Group::rows).sum();
      while (merged < groups.size() && groups.get(merged).rows() <= mergedRows) {
        mergedRows += groups.get(merged).rows();
        merged++;
      }
      List<Integer> fragments = new ArrayList<>();
      groups.subList(0, merged).forEach(group -> fragments.addAll(group.fragments()));
      fragments.sort(null);
      builds.add(List.copyOf(fragments));
      if (added != null && groups.indexOf(added) >= merged) {
        builds.add(added.fragments());
      }
    } else if (added != null) {
      builds.add(added.fragments());
    }
    return new KeySegments(builds);
  }

  private static long rows(List<Integer> fragments, Map<Integer, Long> liveRows) {
    return fragments.stream().mapToLong(liveRows::get).sum();
  }
}
