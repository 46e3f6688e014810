package dev.flinklance.compactor.compat;

import org.apache.flink.annotation.Internal;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;

/**
 * An operator set up from its {@link StreamOperatorParameters} as it is constructed, the way Flink
 * 2.0 builds operators; Flink 1.20 sets them up after construction.
 */
@Internal
public abstract class ParameterizedStreamOperator<OUT> extends AbstractStreamOperator<OUT> {
  private static final long serialVersionUID = 1L;

  protected ParameterizedStreamOperator(StreamOperatorParameters<OUT> parameters) {
    super(parameters);
  }
}
