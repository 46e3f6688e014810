package dev.flinklance.compactor.rewrite;

import dev.flinklance.access.TableRef;
import dev.flinklance.errors.PermanentDatasetException;
import dev.flinklance.files.HeldFiles;
import java.io.IOException;
import java.io.Serializable;
import java.time.Duration;
import java.util.Optional;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.io.SimpleVersionedSerialization;
import org.lance.compaction.RewriteResult;

/**
 * The rewrite outcomes too large to travel inline: {@code _compaction/<uuid>.rewrite} under the
 * table's root, each one task's rewrite (its new and original fragments' metadata and row
 * addresses, which grow with the fragments it rewrote). A worker writes one where the rewrite takes
 * more than {@link #MAX_INLINE_BYTES}; the committer reads it when the plan commits, and deletes it
 * once a checkpoint taken after the plan finished has completed (until then a restore reads it to
 * tell whether the plan landed). So the committer's checkpointed state holds names, whatever the
 * plan's size: the 60-minute soak's state outgrew Flink's 5 MB in-memory limit with whole rewrites
 * in it.
 *
 * <p>A missing file costs no data: a rewrite that cannot be read is not committed, its fragments
 * are planned again, and Lance's cleanup removes the data files it wrote. So files that a restore
 * will not read (a checkpoint that never completed) are removed when {@link #ORPHAN_AGE} old.
 */
@Internal
public final class OutcomeFiles implements Serializable, AutoCloseable {
  private static final long serialVersionUID = 1L;
  static final int MAX_INLINE_BYTES = 16 * 1024;
  public static final Duration ORPHAN_AGE = Duration.ofDays(1);

  private final RewriteOutcome.Serializer serializer = new RewriteOutcome.Serializer();
  private final HeldFiles files;

  public OutcomeFiles(TableRef table) {
    this.files = new HeldFiles(table, "_compaction/", ".rewrite", "rewrite outcome", ORPHAN_AGE);
  }

  /** The outcome as it travels: a large rewrite in a new file, only the file's name inline. */
  public RewriteOutcome hold(RewriteOutcome outcome) {
    if (outcome.result() == null) {
      return outcome;
    }
    byte[] bytes = serialize(outcome);
    if (bytes.length <= MAX_INLINE_BYTES) {
      return outcome;
    }
    return files
        .write(bytes)
        .map(name -> RewriteOutcome.held(outcome.plan(), outcome.index(), name))
        .orElse(outcome);
  }

  /**
   * The rewrite of an outcome: inline, or read from its file; empty if the outcome holds none or
   * its file is gone.
   *
   * @throws PermanentDatasetException if the file is not this outcome's
   */
  public Optional<RewriteResult> result(RewriteOutcome outcome) {
    if (outcome.resultFile() == null) {
      return Optional.ofNullable(outcome.result());
    }
    Optional<byte[]> bytes = files.read(outcome.resultFile());
    if (bytes.isEmpty()) {
      return Optional.empty();
    }
    RewriteOutcome stored;
    try {
      stored = SimpleVersionedSerialization.readVersionAndDeSerialize(serializer, bytes.get());
    } catch (IOException | RuntimeException e) {
      throw foreign(outcome, e);
    }
    if (!stored.plan().equals(outcome.plan())
        || stored.index() != outcome.index()
        || stored.result() == null) {
      throw foreign(outcome, null);
    }
    return Optional.of(stored.result());
  }

  /** Deletes the outcome's file, if it has one; one that cannot be is left as an orphan. */
  public void delete(RewriteOutcome outcome) {
    if (outcome.resultFile() != null) {
      files.delete(outcome.resultFile());
    }
  }

  /**
   * Deletes the outcome files older than {@link #ORPHAN_AGE} at {@code nowMillis}, nothing else.
   *
   * @return how many
   */
  public int deleteOrphans(long nowMillis) {
    return files.deleteOrphans(nowMillis);
  }

  private PermanentDatasetException foreign(RewriteOutcome outcome, Exception cause) {
    return new PermanentDatasetException(
        files.table().uri(),
        String.format(
            "the rewrite outcome file %s is not the one task %d of compaction %s wrote",
            outcome.resultFile(), outcome.index(), outcome.plan().planId()),
        cause);
  }

  private byte[] serialize(RewriteOutcome outcome) {
    try {
      return SimpleVersionedSerialization.writeVersionAndSerialize(serializer, outcome);
    } catch (IOException e) {
      throw new IllegalStateException("in-memory serialization failed", e);
    }
  }

  @Override
  public void close() {
    files.close();
  }
}
