package dev.flinklance.compactor.lineage;

import dev.flinklance.files.TableFiles;
import java.io.IOException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.annotation.Internal;
import org.lance.Branch;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.Ref;
import org.lance.Version;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes side files that no version of the table references any more. Lance's cleanup removes old
 * versions (keeping tagged ones) but never files at the table root, so this runs after it.
 *
 * <p>The window between writing a side file and committing the version that references it: files
 * are listed first, references read second, and only files older than {@code minAge} are deleted. A
 * compaction commits its side file within {@code minAge / 2} of writing it or gives up (see the
 * compaction committer), so a file this old that is about to be referenced cannot exist: its commit
 * landed before the listing, and its version is among those read after it.
 */
@Internal
public final class SideFileGc {
  private static final Logger LOG = LoggerFactory.getLogger(SideFileGc.class);

  private SideFileGc() {}

  /**
   * @return the names of the deleted files
   */
  public static List<String> collect(
      Dataset latest, TableFiles files, Duration minAge, long nowMillis) throws IOException {
    List<TableFiles.Listed> listed = files.list(SideFileSpill.PREFIX);
    if (listed.isEmpty()) {
      return List.of();
    }
    Set<String> referenced = referencedSideFiles(latest);
    List<String> deleted =
        listed.stream()
            .filter(f -> !referenced.contains(f.name()))
            .filter(f -> nowMillis - f.lastModifiedMillis() >= minAge.toMillis())
            .map(TableFiles.Listed::name)
            .toList();
    for (String name : deleted) {
      files.delete(name);
    }
    if (!deleted.isEmpty()) {
      LOG.info(
          "Deleted {} unreferenced row-lineage side files of {}: {}",
          deleted.size(),
          latest.uri(),
          deleted);
    }
    return deleted;
  }

  /** Side files referenced by any version of the table, of its main line or of any branch. */
  public static Set<String> referencedSideFiles(Dataset latest) {
    Set<String> referenced = new HashSet<>();
    for (Version version : latest.listVersions()) {
      try (Dataset at = latest.checkoutVersion(version.getId())) {
        addReferences(at, referenced);
      }
    }
    for (Branch branch : latest.branches().list()) {
      try (Dataset head = latest.checkout(Ref.ofBranch(branch.getName()))) {
        for (Version version : head.listVersions()) {
          try (Dataset at = latest.checkout(Ref.ofBranch(branch.getName(), version.getId()))) {
            addReferences(at, referenced);
          }
        }
      }
    }
    return referenced;
  }

  private static void addReferences(Dataset version, Set<String> referenced) {
    for (Fragment fragment : version.getFragments()) {
      RowIdMetaJson.externalSlice(fragment.metadata().getRowIdMeta())
          .ifPresent(slice -> referenced.add(slice.path()));
    }
  }
}
