package dev.flinklance.iceberg;

import dev.flinklance.testing.Spread;

/**
 * What the benchmark measured of one sink in one case (table count and pace) over the rounds, and
 * of the last round's tables. Commit ms per round: the median and the max over that round's
 * checkpoints, so that the printed "median (min-max)" is over rounds.
 */
final class Measurements {
  final Spread recordsPerSecond = new Spread();
  final Spread sentPerSecond = new Spread();
  final Spread bytes = new Spread();
  final Spread commitMillisMedian = new Spread();
  final Spread commitMillisMax = new Spread();
  final Spread checkpoints = new Spread();
  int untimedCheckpoints;

  /** Of the last round's tables, per table median (min-max): commits with rows, versions, files. */
  String commitsPerTable = "-";

  String versionsPerTable = "-";
  String filesPerTable = "-";
  String equalsModel = "-";

  void addRound(double recordsPerSecond, double sentPerSecond, long bytes, CommitLatency latency) {
    this.recordsPerSecond.add(recordsPerSecond);
    this.sentPerSecond.add(sentPerSecond);
    this.bytes.add(bytes);
    Spread round = new Spread();
    round.addAll(latency.millis());
    if (!round.isEmpty()) {
      commitMillisMedian.add(round.median());
      commitMillisMax.add(round.max());
    }
    checkpoints.add(latency.millis().size());
    untimedCheckpoints += latency.untimed();
  }
}
