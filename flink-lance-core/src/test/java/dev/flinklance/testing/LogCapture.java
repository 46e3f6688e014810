package dev.flinklance.testing;

import java.util.List;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configurator;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;
import org.apache.logging.log4j.core.layout.PatternLayout;

/**
 * Everything every logger writes at INFO and above (Flink's, Lance's Java side, ours), with
 * exception chains, while it is open, instead of the console. Closing restores the test logging
 * configuration. Lance's native code logs to the process's stderr and is not captured.
 */
public final class LogCapture implements AutoCloseable {
  private final StringBuffer text = new StringBuffer();
  private final LoggerContext context = (LoggerContext) LogManager.getContext(false);
  private final AbstractAppender appender =
      new AbstractAppender(
          "log-capture",
          null,
          PatternLayout.newBuilder().withPattern("%p %c - %m%n%throwable").build(),
          true,
          Property.EMPTY_ARRAY) {
        @Override
        public void append(LogEvent event) {
          text.append(getLayout().toSerializable(event));
        }
      };

  private LogCapture() {
    appender.start();
    LoggerConfig root = context.getConfiguration().getRootLogger();
    // only here, not on the console too: INFO from every logger would flood the build output
    for (String console : List.copyOf(root.getAppenders().keySet())) {
      root.removeAppender(console);
    }
    root.addAppender(appender, Level.ALL, null);
    Configurator.setAllLevels(LogManager.ROOT_LOGGER_NAME, Level.INFO);
  }

  public static LogCapture start() {
    return new LogCapture();
  }

  /** What was logged so far. */
  public String text() {
    return text.toString();
  }

  @Override
  public void close() {
    // the old configuration keeps this appender until reconfigure() swaps it out: stopping it first
    // makes Flink's threads that log meanwhile report "non-started appender" errors
    context.reconfigure();
    appender.stop();
  }
}
