package dev.flinklance.compactor.plan;

import dev.flinklance.compactor.operator.CompactionPlanner;
import dev.flinklance.state.FormatSerializer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.DataOutputView;

/**
 * What the {@link CompactionPlanner} keeps in every checkpoint: its trigger's counters and the
 * plans in flight.
 */
@Internal
public record PlannerState(
    long commitsSinceLast, long lastCompactionMillis, List<InFlightPlan> inFlight) {
  private static final Serializer SERIALIZER = new Serializer();

  public PlannerState {
    inFlight = List.copyOf(inFlight);
  }

  /** The state's bytes: the format, then the serialized state (no length between them). */
  public byte[] toBytes() throws IOException {
    byte[] state = SERIALIZER.serialize(this);
    DataOutputSerializer out = new DataOutputSerializer(Integer.BYTES + state.length);
    out.writeInt(SERIALIZER.getVersion());
    out.write(state);
    return out.getCopyOfBuffer();
  }

  public static PlannerState fromBytes(byte[] bytes) throws IOException {
    int format = new DataInputDeserializer(bytes).readInt();
    return SERIALIZER.deserialize(format, Arrays.copyOfRange(bytes, Integer.BYTES, bytes.length));
  }

  /** Versioned form of the planner's state. */
  static final class Serializer extends FormatSerializer<PlannerState> {

    Serializer() {
      super("compaction planner states", 1, 256);
    }

    @Override
    protected void write(PlannerState state, DataOutputView out) throws IOException {
      out.writeLong(state.commitsSinceLast);
      out.writeLong(state.lastCompactionMillis);
      out.writeInt(state.inFlight.size());
      for (InFlightPlan plan : state.inFlight) {
        plan.write(out);
      }
    }

    @Override
    protected PlannerState read(DataInputView in) throws IOException {
      long commitsSinceLast = in.readLong();
      long lastCompactionMillis = in.readLong();
      int count = in.readInt();
      List<InFlightPlan> inFlight = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        inFlight.add(InFlightPlan.read(in));
      }
      return new PlannerState(commitsSinceLast, lastCompactionMillis, inFlight);
    }
  }
}
