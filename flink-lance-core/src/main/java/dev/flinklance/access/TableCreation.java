package dev.flinklance.access;

import dev.flinklance.errors.LanceCalls;
import dev.flinklance.errors.LanceErrors;
import dev.flinklance.errors.LanceErrors.Kind;
import dev.flinklance.errors.LanceRetries;
import dev.flinklance.errors.PermanentDatasetException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.CommitBuilder;
import org.lance.Dataset;
import org.lance.FragmentMetadata;
import org.lance.Transaction;
import org.lance.operation.Append;
import org.lance.operation.Overwrite;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creating a table that racing writers may create at the same moment. Lance 7.0.0 offers no
 * create-if-absent: its creation commit checks for the table and then commits, and a table that
 * appears in between is silently overwritten (the commit lands as an Overwrite at version N &gt;
 * 1). So the version we get back tells: version 1 means we created the table; anything later means
 * we replaced a table someone else had just created, and what it held is brought back at once. Data
 * never rides on the creation commit, so the worst case is an extra empty version.
 */
final class TableCreation {
  private static final Logger LOG = LoggerFactory.getLogger(TableCreation.class);

  /** Retries of the re-append of hidden rows ({@link #reappendOnLatest}). */
  private static final int REAPPEND_RETRIES = 4;

  private final TableRef table;
  private final BufferAllocator allocator;

  TableCreation(TableRef table, BufferAllocator allocator) {
    this.table = table;
    this.allocator = allocator;
  }

  /** The new table, or empty if another writer created it first. */
  Optional<Dataset> createIfAbsent(
      Schema schema, boolean stableRowIds, String dataStorageVersion, Map<String, String> config) {
    Overwrite.Builder overwrite = Overwrite.builder().fragments(List.of()).schema(schema);
    if (!config.isEmpty()) {
      overwrite.configUpsertValues(config);
    }
    Dataset created =
        LanceCalls.callOr(
            table.uri(),
            "cannot create the table",
            () -> {
              try (Transaction creation =
                  new Transaction.Builder().readVersion(0).operation(overwrite.build()).build()) {
                CommitBuilder commit =
                    new CommitBuilder(table.uri(), allocator)
                        .writeParams(table.storageOptions())
                        .useStableRowIds(stableRowIds)
                        .maxRetries(0);
                if (dataStorageVersion != null) {
                  commit.storageFormat(storageFormatName(dataStorageVersion));
                }
                return commit.execute(creation);
              }
            },
            e -> LanceErrors.isAlreadyExists(e) || LanceErrors.isCommitConflict(e),
            null);
    if (created == null) {
      return Optional.empty(); // another writer's creation came first
    }
    if (created.version() == 1) {
      return Optional.of(created);
    }
    undoRacedCreation(created, schema);
    return Optional.empty();
  }

  /**
   * Our creation landed as an Overwrite on a table someone created just before, hiding its rows
   * (and replacing its schema). When the schemas are the same (two instances of one job starting
   * together), their fragments are appended again on top of the latest version: nothing committed
   * by anyone since is rolled back, and racing creators each bring back what they hid. Otherwise
   * (another schema, deletion files that a re-append cannot carry) their version is restored.
   */
  private void undoRacedCreation(Dataset created, Schema ours) {
    long replaced = created.version() - 1;
    LOG.warn(
        "Creating {} raced with another writer: our creation landed as version {} on top of"
            + " theirs; bringing back what version {} held.",
        table,
        created.version(),
        replaced);
    try (Dataset theirs = created.checkoutVersion(replaced)) {
      List<FragmentMetadata> hidden = new ArrayList<>();
      theirs.getFragments().forEach(fragment -> hidden.add(fragment.metadata()));
      boolean reappendable =
          theirs.getSchema().equals(ours)
              && hidden.stream().allMatch(f -> f.getDeletionFile() == null);
      if (!reappendable) {
        theirs.restore();
      } else if (!hidden.isEmpty()) {
        reappendOnLatest(created, hidden);
      }
    } catch (Exception e) { // Lance also throws undeclared IOExceptions from native code
      throw new PermanentDatasetException(
          table.uri(),
          String.format(
              "a concurrent creation hid the rows of version %d and bringing them back failed;"
                  + " restore it with Dataset.checkoutVersion(%d).restore()",
              replaced, replaced),
          e);
    } finally {
      created.close();
    }
  }

  /**
   * A further racing creation can land its Overwrite between our read and our Append, which then
   * conflicts; that creator brings back only what it hid (our empty creation), so the hidden rows
   * are appended again on top of the newest version.
   */
  private void reappendOnLatest(Dataset created, List<FragmentMetadata> fragments) {
    LanceRetries.callAtOnce(
        REAPPEND_RETRIES,
        EnumSet.of(Kind.CONFLICT, Kind.TRANSIENT),
        () ->
            LanceCalls.call(
                table.uri(),
                "cannot append the hidden rows again",
                () -> {
                  try (Dataset latest = created.checkoutVersion(created.latestVersion())) {
                    reappend(latest, fragments);
                    return null;
                  }
                }),
        (failure, retry, delay) ->
            LOG.warn("Bringing back hidden rows of {} failed; trying again", table, failure));
  }

  /** Appends existing fragment files again; the commit gives them new ids and row lineage. */
  private void reappend(Dataset latest, List<FragmentMetadata> fragments) {
    List<FragmentMetadata> fresh = new ArrayList<>();
    for (FragmentMetadata f : fragments) {
      fresh.add(new FragmentMetadata(f.getId(), f.getFiles(), f.getPhysicalRows(), null, null));
    }
    try (Transaction append =
            new Transaction.Builder()
                .readVersion(latest.version())
                .operation(Append.builder().fragments(fresh).build())
                .build();
        Dataset ignored =
            new CommitBuilder(latest)
                .writeParams(table.storageOptions())
                .maxRetries(10)
                .execute(append)) {
      // committed
    }
  }

  /** "2.2" (how users write it) to "v2_2" (what Lance's commit builder expects). */
  static String storageFormatName(String version) {
    return version.matches("\\d+\\.\\d+") ? "v" + version.replace('.', '_') : version;
  }
}
