package dev.flinklance.compactor.plan;

import dev.flinklance.compactor.CompactionConfig;
import org.apache.flink.streaming.api.operators.AbstractStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.OneInputStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.StreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;

/** Creates the {@link CompactionPlanner} with the task's mailbox, for its background work. */
public final class CompactionPlannerFactory extends AbstractStreamOperatorFactory<RewriteTask>
    implements OneInputStreamOperatorFactory<PlanRequest, RewriteTask> {
  private static final long serialVersionUID = 1L;

  private final CompactionConfig config;

  public CompactionPlannerFactory(CompactionConfig config) {
    this.config = config;
  }

  @Override
  @SuppressWarnings("unchecked")
  public <T extends StreamOperator<RewriteTask>> T createStreamOperator(
      StreamOperatorParameters<RewriteTask> parameters) {
    return (T) new CompactionPlanner(parameters, config);
  }

  @Override
  public Class<? extends StreamOperator> getStreamOperatorClass(ClassLoader classLoader) {
    return CompactionPlanner.class;
  }
}
