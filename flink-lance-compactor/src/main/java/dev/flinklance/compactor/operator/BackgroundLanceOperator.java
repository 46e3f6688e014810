package dev.flinklance.compactor.operator;

import dev.flinklance.access.TableLoader;
import dev.flinklance.access.TableRef;
import dev.flinklance.compactor.CompactionConfig;
import dev.flinklance.compactor.compat.ParameterizedStreamOperator;
import org.apache.flink.annotation.Internal;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A parallelism-1 compaction operator whose Lance work runs in the {@link BackgroundWork} on one
 * {@link TableLoader}; at the end of its input it waits for that work.
 */
@Internal
public abstract class BackgroundLanceOperator<OUT> extends ParameterizedStreamOperator<OUT>
    implements BoundedOneInput {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(BackgroundLanceOperator.class);

  protected final CompactionConfig config;
  protected final TableRef table;
  protected final BackgroundWork background;
  protected final TableLoader handle;

  protected BackgroundLanceOperator(
      StreamOperatorParameters<OUT> parameters, CompactionConfig config, String threadName) {
    super(parameters);
    this.config = config;
    this.table = config.dataset();
    this.background = new BackgroundWork(threadName, parameters.getMailboxExecutor());
    this.handle = new TableLoader(table);
  }

  @Override
  public void endInput() throws Exception {
    background.awaitIdle();
  }

  @Override
  public void close() throws Exception {
    if (background.stop()) {
      handle.close();
    } else {
      LOG.warn("A Lance call on {} is still running; leaving its dataset open", table);
    }
    super.close();
  }
}
