package dev.flinklance.sink.testing;

import java.util.OptionalLong;
import org.apache.flink.api.common.JobInfo;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.metrics.groups.OperatorMetricGroup;
import org.apache.flink.metrics.groups.SinkCommitterMetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.metrics.groups.InternalSinkCommitterMetricGroup;

/** The committer's init context outside a Flink job: what a restore (or a fresh start) gives. */
public final class TestCommitterContext implements CommitterInitContext {
  private final OptionalLong restoredCheckpointId;
  private final OperatorMetricGroup metrics = UnregisteredMetricsGroup.createOperatorMetricGroup();

  private TestCommitterContext(OptionalLong restoredCheckpointId) {
    this.restoredCheckpointId = restoredCheckpointId;
  }

  public static TestCommitterContext fresh() {
    return new TestCommitterContext(OptionalLong.empty());
  }

  public static TestCommitterContext restoredFrom(long checkpointId) {
    return new TestCommitterContext(OptionalLong.of(checkpointId));
  }

  @Override
  public SinkCommitterMetricGroup metricGroup() {
    return InternalSinkCommitterMetricGroup.wrap(metrics);
  }

  @Override
  public OptionalLong getRestoredCheckpointId() {
    return restoredCheckpointId;
  }

  @Override
  public JobInfo getJobInfo() {
    throw new UnsupportedOperationException("the committer does not need the job info");
  }

  @Override
  public TaskInfo getTaskInfo() {
    throw new UnsupportedOperationException("the committer does not need the task info");
  }
}
