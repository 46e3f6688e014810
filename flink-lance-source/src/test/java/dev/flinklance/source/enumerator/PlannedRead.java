package dev.flinklance.source.enumerator;

import dev.flinklance.access.VersionMark;
import dev.flinklance.source.LanceScan;
import dev.flinklance.source.split.LanceSplit;
import dev.flinklance.source.testing.PolledReader;
import java.util.ArrayList;
import java.util.List;

/**
 * A streaming read without Flink's runtime: {@link ChangePlanner} plans, and one {@link
 * PolledReader} reads each split to its end in {@link LanceSplit#READ_ORDER}, as the enumerator
 * hands them to the one reader of a changelog read. Each row as {@code +I[0, name-0]}.
 */
final class PlannedRead implements AutoCloseable {
  private final ChangePlanner planner;
  private final PolledReader reader;
  private VersionMark position;
  private RuntimeException failure;

  PlannedRead(LanceScan scan) {
    this.planner = new ChangePlanner(scan);
    this.reader = PolledReader.start(scan, List.of());
  }

  /** The rows of the start position ({@code scan.startup.mode}), then of every version since. */
  List<String> start() throws Exception {
    ChangePlanner.Plan plan = planner.start();
    position = plan.position();
    List<String> rows = new ArrayList<>(read(plan.splits()));
    rows.addAll(next());
    return rows;
  }

  /**
   * The rows of the versions committed since the last call, up to the latest; up to the version
   * before one that cannot be planned, whose failure {@link #failure()} then holds (as the
   * enumerator reads the splits planned before a failure, then fails).
   */
  List<String> next() throws Exception {
    List<LanceSplit> splits = new ArrayList<>();
    while (failure == null) {
      ChangePlanner.Plan plan;
      try {
        plan = planner.next(position);
      } catch (RuntimeException e) {
        failure = e;
        break;
      }
      splits.addAll(plan.splits());
      position = plan.position();
      if (plan.caughtUp()) {
        break;
      }
    }
    return read(splits);
  }

  /** Why the read cannot go on, or null. */
  RuntimeException failure() {
    return failure;
  }

  VersionMark position() {
    return position;
  }

  private List<String> read(List<LanceSplit> splits) throws Exception {
    return reader.readEach(splits.stream().sorted(LanceSplit.READ_ORDER).toList());
  }

  @Override
  public void close() throws Exception {
    reader.close();
  }
}
