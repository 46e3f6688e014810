package dev.flinklance.commit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.flink.annotation.Internal;

/**
 * What every sink commit carries in its Lance transaction properties. It makes a commit
 * recognisable in the table's own history, which is how a commit that may have landed already is
 * told apart from one that did not.
 *
 * <p>Identity is {@code (run, runSeq)}: a sink run is one life of the sink's aggregator (a new one
 * after every start, restart or restore), and its committables are numbered 1, 2, 3, ... and
 * committed in that order. Checkpoint ids are not an identity: they repeat across fresh starts,
 * restores from older savepoints and end-of-input commits.
 *
 * @param commitUser the sink's commit user (informational; names the writer in the history)
 * @param run the sink run that created the committable
 * @param runSeq the committable's number within its run, from 1
 * @param checkpointId the checkpoint the committable belongs to (informational)
 * @param jobId the Flink job that produced it (informational)
 */
@Internal
public record CommitStamp(
    String commitUser, String run, long runSeq, long checkpointId, String jobId) {
  public static final String COMMIT_USER = "flink.commit-user";
  public static final String RUN = "flink.sink-run";
  public static final String RUN_SEQ = "flink.sink-run-seq";
  public static final String CHECKPOINT_ID = "flink.checkpoint-id";
  public static final String JOB_ID = "flink.job-id";
  public static final String CONNECTOR_VERSION = "flink-lance.version";

  private static final String VERSION = readConnectorVersion();

  public Map<String, String> toProperties() {
    return Map.of(
        COMMIT_USER,
        commitUser,
        RUN,
        run,
        RUN_SEQ,
        Long.toString(runSeq),
        CHECKPOINT_ID,
        Long.toString(checkpointId),
        JOB_ID,
        String.valueOf(jobId),
        CONNECTOR_VERSION,
        VERSION);
  }

  /** The stamp among a transaction's properties; empty for commits not made by a Lance sink. */
  public static Optional<CommitStamp> from(Map<String, String> properties) {
    String run = properties.get(RUN);
    String seq = properties.get(RUN_SEQ);
    if (run == null || seq == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(
          new CommitStamp(
              properties.get(COMMIT_USER),
              run,
              Long.parseLong(seq),
              Long.parseLong(properties.getOrDefault(CHECKPOINT_ID, "-1")),
              properties.get(JOB_ID)));
    } catch (NumberFormatException e) {
      return Optional.empty(); // not ours after all: someone else's properties
    }
  }

  /** The version of this connector, as stamped on its commits. */
  public static String connectorVersion() {
    return VERSION;
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
