package dev.flinklance.compat;

import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.flink.util.ParameterTool;

/** Flink's {@link ParameterTool}, which Flink 2.0 moved to another package. */
@Internal
public final class CommandLine {
  private CommandLine() {}

  /** The arguments as {@link ParameterTool#fromArgs} reads them, including its errors. */
  public static Map<String, String> parse(String[] args) {
    return ParameterTool.fromArgs(args).toMap();
  }
}
