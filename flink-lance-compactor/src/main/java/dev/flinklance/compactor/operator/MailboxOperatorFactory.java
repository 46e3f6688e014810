package dev.flinklance.compactor.operator;

import org.apache.flink.annotation.Internal;
import org.apache.flink.streaming.api.operators.AbstractStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.StreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.util.function.SerializableFunction;

/**
 * Creates an operator from its {@link StreamOperatorParameters}, which carry the task's mailbox:
 * what an operator needs to hand {@link BackgroundWork} results back to its own thread.
 */
@Internal
public final class MailboxOperatorFactory<IN, OUT> extends AbstractStreamOperatorFactory<OUT>
    implements OneInputStreamOperatorFactory<IN, OUT> {
  private static final long serialVersionUID = 1L;

  private final Class<? extends StreamOperator> type;
  private final SerializableFunction<StreamOperatorParameters<OUT>, OneInputStreamOperator<IN, OUT>>
      create;

  public MailboxOperatorFactory(
      Class<? extends StreamOperator> type,
      SerializableFunction<StreamOperatorParameters<OUT>, OneInputStreamOperator<IN, OUT>> create) {
    this.type = type;
    this.create = create;
  }

  @Override
  @SuppressWarnings("unchecked")
  public <T extends StreamOperator<OUT>> T createStreamOperator(
      StreamOperatorParameters<OUT> parameters) {
    return (T) create.apply(parameters);
  }

  @Override
  public Class<? extends StreamOperator> getStreamOperatorClass(ClassLoader classLoader) {
    return type;
  }
}
