package dev.flinklance.source;

import dev.flinklance.access.VersionMark;
import dev.flinklance.source.enumerator.LanceEnumeratorState;
import dev.flinklance.source.enumerator.LanceEnumeratorStateSerializer;
import dev.flinklance.source.split.LanceSplit;
import dev.flinklance.source.split.LanceSplitSerializer;
import dev.flinklance.source.split.SplitKind;
import dev.flinklance.testing.SerializerSnapshots;
import java.util.ArrayList;
import java.util.List;

/**
 * The source's formats: splits (in readers' and the enumerator's checkpoints, and on the wire to
 * readers) of every kind, and the enumerator's state of a bounded and of a streaming read. Format 1
 * (bounded reads only, before streaming reads) is refused: its bytes were written by the code of
 * commit e144894. How to add a format: {@link SerializerSnapshots}.
 */
class SourceSerializerSnapshotsTest extends SerializerSnapshots {
  private static final LanceSplitSerializer SPLITS = new LanceSplitSerializer();
  private static final LanceEnumeratorStateSerializer STATES = new LanceEnumeratorStateSerializer();

  @Override
  protected List<Snapshot<?>> snapshots() {
    List<Snapshot<?>> snapshots = new ArrayList<>();
    for (SplitKind kind : SplitKind.values()) {
      snapshots.add(
          Snapshot.current(
              "lance-split-" + kind.name().toLowerCase().replace('_', '-'), SPLITS, split(kind)));
    }
    snapshots.add(
        Snapshot.current(
            "lance-enumerator-state-bounded",
            STATES,
            new LanceEnumeratorState(
                List.of(
                    LanceSplit.of(SplitKind.SNAPSHOT, 0, 1, 0),
                    new LanceSplit(SplitKind.SNAPSHOT, Integer.MAX_VALUE, 1, 0, 999)),
                null)));
    snapshots.add(
        Snapshot.current(
            "lance-enumerator-state-streaming",
            STATES,
            new LanceEnumeratorState(
                List.of(split(SplitKind.REMOVED), split(SplitKind.ADDED)),
                new VersionMark(Long.MAX_VALUE, 1_700_000_000_123_456_789L))));
    snapshots.add(
        Snapshot.current(
            "lance-enumerator-state-caught-up",
            STATES,
            new LanceEnumeratorState(List.of(), new VersionMark(-1, 0))));
    snapshots.add(Snapshot.refused("lance-split-snapshot", SPLITS, 1));
    snapshots.add(Snapshot.refused("lance-enumerator-state-bounded", STATES, 1));
    return snapshots;
  }

  @Override
  protected Class<?> mainClass() {
    return LanceSource.class;
  }

  /** A split past every 32-bit figure, resumed after some rows, distinct per kind. */
  private static LanceSplit split(SplitKind kind) {
    return new LanceSplit(
        kind,
        100 + kind.ordinal(),
        5_000_000_000L + kind.ordinal(),
        1_764_633_600_000L,
        3_000_000_000L * (kind.ordinal() + 1));
  }
}
