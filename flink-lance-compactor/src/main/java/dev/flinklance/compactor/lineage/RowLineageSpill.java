package dev.flinklance.compactor.lineage;

import java.util.List;
import org.apache.flink.annotation.Internal;
import org.lance.FragmentMetadata;
import org.lance.compaction.RewriteResult;

/**
 * Moves the row lineage that compaction carries over (the rewritten rows' stable row ids) out of
 * the manifest before the compaction commits. Lineage a commit assigns stays inline (DESIGN.md's
 * placement rule), so only compaction spills. lance-core 7.0.0 offers one place to put it: External
 * row-id slices in side files ({@link SideFileSpill}); upstream Lance's hidden lineage columns in
 * the data files are a second implementation once a Java release ships them.
 */
@Internal
public interface RowLineageSpill {

  /** What a spill did. */
  record Spilled(List<RewriteResult> results, long bytes, List<String> files, long writtenAtNanos) {
    public static Spilled nothing(List<RewriteResult> results) {
      return new Spilled(results, 0, List.of(), System.nanoTime());
    }
  }

  /**
   * Returns the rewrite results to commit, with the lineage of their new fragments moved where it
   * belongs, after reading every moved value back.
   *
   * @throws SpillVerificationException if a value read back differs from what was written: the
   *     compaction must not commit
   * @throws java.io.IOException if the lineage cannot be written or read back
   */
  Spilled spill(List<RewriteResult> results) throws java.io.IOException;

  /** Whether a fragment's carried-over lineage, if it is in the manifest, belongs outside it. */
  boolean belongsOutside(FragmentMetadata fragment);

  /** Spills nothing: row ids stay inline. */
  RowLineageSpill NONE =
      new RowLineageSpill() {
        @Override
        public Spilled spill(List<RewriteResult> results) {
          return Spilled.nothing(results);
        }

        @Override
        public boolean belongsOutside(FragmentMetadata fragment) {
          return false;
        }
      };
}
