package dev.flinklance.compactor.commit;

import dev.flinklance.compactor.CompactionConfig;
import dev.flinklance.compactor.rewrite.RewriteOutcome;
import org.apache.flink.streaming.api.operators.AbstractStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.OneInputStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.StreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;

/** Creates the {@link CompactionCommitter} with the task's mailbox, for its background work. */
public final class CompactionCommitterFactory
    extends AbstractStreamOperatorFactory<CompactionSummary>
    implements OneInputStreamOperatorFactory<RewriteOutcome, CompactionSummary> {
  private static final long serialVersionUID = 1L;

  private final CompactionConfig config;

  public CompactionCommitterFactory(CompactionConfig config) {
    this.config = config;
  }

  @Override
  @SuppressWarnings("unchecked")
  public <T extends StreamOperator<CompactionSummary>> T createStreamOperator(
      StreamOperatorParameters<CompactionSummary> parameters) {
    return (T) new CompactionCommitter(parameters, config);
  }

  @Override
  public Class<? extends StreamOperator> getStreamOperatorClass(ClassLoader classLoader) {
    return CompactionCommitter.class;
  }
}
