package dev.flinklance.sink.aggregator;

import dev.flinklance.access.OpenTable;
import dev.flinklance.access.TableRef;
import dev.flinklance.access.VersionMark;
import java.util.List;
import java.util.UUID;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The identity a sink stamps on its commits: the configured one, or a UUID created on the first run
 * and kept in the aggregator's operator state, so that it survives a restore from a savepoint
 * (which changes the job id).
 */
@Internal
public final class CommitUser {
  private static final Logger LOG = LoggerFactory.getLogger(CommitUser.class);

  private CommitUser() {}

  /**
   * The commit user of the aggregator whose state {@code context} holds, kept there for the next
   * run.
   *
   * @param configured the user-set commit user, or null
   */
  public static String restore(StateInitializationContext context, String configured)
      throws Exception {
    ListState<String> state =
        context
            .getOperatorStateStore()
            .getListState(new ListStateDescriptor<>("lance-commit-user", Types.STRING));
    String restored = null;
    for (String user : state.get()) {
      restored = user;
    }
    String user = choose(configured, restored);
    state.update(List.of(user));
    return user;
  }

  private static String choose(String configured, String restored) {
    if (configured != null) {
      if (restored != null && !restored.equals(configured)) {
        LOG.warn(
            "Commit user changed from '{}' (restored) to '{}' (configured); using the configured"
                + " one. Pending commits keep the user they were created with.",
            restored,
            configured);
      }
      return configured;
    }
    if (restored != null) {
      return restored;
    }
    String created = UUID.randomUUID().toString();
    LOG.info("Created commit user '{}' for this sink; it is kept in Flink state", created);
    return created;
  }

  /** The table's latest version, or {@link VersionMark#NO_TABLE}: where a sink run starts. */
  public static VersionMark latestMark(TableRef table) {
    return OpenTable.latestIfExists(table)
        .map(
            open -> {
              try (open) {
                return VersionMark.of(open.dataset());
              }
            })
        .orElse(VersionMark.NO_TABLE);
  }
}
