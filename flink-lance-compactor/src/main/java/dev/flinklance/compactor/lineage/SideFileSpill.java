package dev.flinklance.compactor.lineage;

import dev.flinklance.files.TableFiles;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.apache.flink.annotation.Internal;
import org.lance.FragmentMetadata;
import org.lance.compaction.RewriteResult;
import org.lance.fragment.RowIdMeta;

/**
 * The lance-core 7.0.0 spill: each new fragment whose inline row-id sequence is larger than the
 * budget gets its sequence written to ONE side file per commit at the table root and referenced as
 * an External slice. Version sequences ({@code _row_created_at_version}, {@code
 * _row_last_updated_at_version}) stay inline: 7.0.0 aborts the JVM reading external ones.
 */
@Internal
public final class SideFileSpill implements RowLineageSpill {
  /** Every side file's name starts with this; nothing else at a table's root does. */
  public static final String PREFIX = "_rowids-";

  private final TableFiles files;
  private final long inlineMaxBytes;

  public SideFileSpill(TableFiles files, long inlineMaxBytes) {
    this.files = files;
    this.inlineMaxBytes = inlineMaxBytes;
  }

  @Override
  public boolean belongsOutside(FragmentMetadata fragment) {
    return RowIdMetaJson.inlineSize(fragment.getRowIdMeta()) > inlineMaxBytes;
  }

  /** A sequence on its way into the side file. */
  private record Slice(int result, int fragment, byte[] bytes, long offset) {}

  @Override
  public Spilled spill(List<RewriteResult> results) throws IOException {
    List<Slice> slices = new ArrayList<>();
    ByteArrayOutputStream content = new ByteArrayOutputStream();
    for (int r = 0; r < results.size(); r++) {
      List<FragmentMetadata> fragments = results.get(r).getNewFragments();
      for (int f = 0; f < fragments.size(); f++) {
        byte[] bytes = RowIdMetaJson.inlineBytes(fragments.get(f).getRowIdMeta()).orElse(null);
        if (bytes != null && bytes.length > inlineMaxBytes) {
          slices.add(new Slice(r, f, bytes, content.size()));
          content.write(bytes);
        }
      }
    }
    if (slices.isEmpty()) {
      return Spilled.nothing(results);
    }
    String name = PREFIX + UUID.randomUUID() + ".bin";
    long writtenAt = System.nanoTime();
    files.write(name, content.toByteArray());
    verify(name, slices);
    return new Spilled(
        withExternalRowIds(results, slices, name), content.size(), List.of(name), writtenAt);
  }

  private void verify(String name, List<Slice> slices) throws IOException {
    for (Slice slice : slices) {
      byte[] read = files.read(name, slice.offset(), slice.bytes().length);
      if (!Arrays.equals(read, slice.bytes())) {
        throw new SpillVerificationException(
            String.format(
                "row ids of a compacted fragment read back from side file %s (offset %d, %d"
                    + " bytes) differ from those written",
                name, slice.offset(), slice.bytes().length));
      }
    }
  }

  private static List<RewriteResult> withExternalRowIds(
      List<RewriteResult> results, List<Slice> slices, String name) {
    List<List<FragmentMetadata>> fragments = new ArrayList<>();
    for (RewriteResult result : results) {
      fragments.add(new ArrayList<>(result.getNewFragments()));
    }
    for (Slice slice : slices) {
      FragmentMetadata inline = fragments.get(slice.result()).get(slice.fragment());
      RowIdMeta external = RowIdMetaJson.external(name, slice.offset(), slice.bytes().length);
      fragments
          .get(slice.result())
          .set(
              slice.fragment(),
              new FragmentMetadata(
                  inline.getId(),
                  inline.getFiles(),
                  inline.getPhysicalRows(),
                  inline.getDeletionFile(),
                  external,
                  inline.getCreatedAtVersionMeta(),
                  inline.getLastUpdatedAtVersionMeta()));
    }
    List<RewriteResult> spilled = new ArrayList<>();
    for (int r = 0; r < results.size(); r++) {
      RewriteResult result = results.get(r);
      spilled.add(
          new RewriteResult(
              result.getMetrics(),
              fragments.get(r),
              result.getOriginalFragments(),
              result.getReadVersion(),
              result.getRowAddrs()));
    }
    return spilled;
  }
}
