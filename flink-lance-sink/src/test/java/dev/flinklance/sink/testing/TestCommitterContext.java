package dev.flinklance.sink.testing;

import java.util.OptionalLong;
import org.apache.flink.api.common.JobInfo;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.metrics.groups.OperatorMetricGroup;
import org.apache.flink.metrics.groups.SinkCommitterMetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.metrics.groups.InternalSinkCommitterMetricGroup;

/** The committer's init context outside a Flink job. */
public final class TestCommitterContext implements CommitterInitContext {
  private final OperatorMetricGroup metrics = UnregisteredMetricsGroup.createOperatorMetricGroup();

  private TestCommitterContext() {}

  /**
   * The committer does not look at the restored checkpoint: committables identify themselves, so a
   * fresh context serves for restores as well.
   */
  public static TestCommitterContext fresh() {
    return new TestCommitterContext();
  }

  @Override
  public SinkCommitterMetricGroup metricGroup() {
    return InternalSinkCommitterMetricGroup.wrap(metrics);
  }

  @Override
  public OptionalLong getRestoredCheckpointId() {
    return OptionalLong.empty();
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
