package dev.flinklance.commit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Properties;

/**
 * The transaction properties every commit carries. They are what makes a commit recognisable in the
 * table's own history, which is how replays are detected.
 */
public final class CommitStamp {
  public static final String COMMIT_USER = "flink.commit-user";
  public static final String CHECKPOINT_ID = "flink.checkpoint-id";
  public static final String JOB_ID = "flink.job-id";
  public static final String CONNECTOR_VERSION = "flink-lance.version";

  private static final String VERSION = readConnectorVersion();

  private CommitStamp() {}

  public static Map<String, String> of(String commitUser, long checkpointId, String jobId) {
    return Map.of(
        COMMIT_USER, commitUser,
        CHECKPOINT_ID, Long.toString(checkpointId),
        JOB_ID, String.valueOf(jobId),
        CONNECTOR_VERSION, VERSION);
  }

  /** The checkpoint id stamped by {@code commitUser}, if the properties carry that user's stamp. */
  public static OptionalLong checkpointOf(Map<String, String> properties, String commitUser) {
    if (!commitUser.equals(properties.get(COMMIT_USER))) {
      return OptionalLong.empty();
    }
    return Optional.ofNullable(properties.get(CHECKPOINT_ID))
        .map(id -> OptionalLong.of(Long.parseLong(id)))
        .orElse(OptionalLong.empty());
  }

  private static String readConnectorVersion() {
    Properties properties = new Properties();
    try (InputStream in =
        CommitStamp.class.getResourceAsStream("/dev/flinklance/connector.properties")) {
      if (in != null) {
        properties.load(in);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return properties.getProperty("version", "unknown");
  }
}
