package dev.flinklance.compactor.commit;

import dev.flinklance.compactor.lineage.RowLineageSpill;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.compaction.CompactionMetrics;
import org.lance.compaction.RewriteResult;

/**
 * Fragments outside the plan whose carried-over row ids sit inline although they belong outside the
 * manifest: Lance's own compaction writes them back inline. They ride along with the next
 * compaction commit as metadata-only rewrites (same data files, same rows, same row ids, the row-id
 * sequence moved to a side file).
 *
 * <p>Only fragments without a deletion file: a deletion file's path carries its fragment's id, and
 * the commit gives every new fragment a new id.
 */
final class Respill {

  private Respill() {}

  static List<RewriteResult> of(Dataset dataset, List<RewriteResult> plan, RowLineageSpill spill) {
    Set<Integer> planned = new HashSet<>();
    plan.forEach(r -> r.getOriginalFragments().forEach(f -> planned.add(f.getId())));
    return dataset.getFragments().stream()
        .map(Fragment::metadata)
        .filter(f -> !planned.contains(f.getId()))
        .filter(f -> f.getDeletionFile() == null && spill.belongsOutside(f))
        .map(f -> metadataOnly(f, dataset.version()))
        .toList();
  }

  private static RewriteResult metadataOnly(FragmentMetadata fragment, long readVersion) {
    FragmentMetadata moved =
        new FragmentMetadata(
            0, // the commit assigns the id
            fragment.getFiles(),
            fragment.getPhysicalRows(),
            null,
            fragment.getRowIdMeta(),
            fragment.getCreatedAtVersionMeta(),
            fragment.getLastUpdatedAtVersionMeta());
    return new RewriteResult(
        new CompactionMetrics(1, 1, 0, 0), List.of(moved), List.of(fragment), readVersion, null);
  }
}
