package dev.flinklance.testing;

import java.util.List;
import org.lance.FragmentMetadata;
import org.lance.fragment.DataFile;
import org.lance.fragment.DeletionFile;
import org.lance.fragment.DeletionFileType;
import org.lance.fragment.RowIdMeta;
import org.lance.fragment.VersionMeta;

/**
 * Fragment metadata with every awkward value the serializers must keep: every optional field set
 * and every one null, unicode paths, numbers past 32 bits. The fixtures of stored serializer bytes
 * ({@link SerializerSnapshots}): changing them changes those bytes.
 */
public final class FragmentFixtures {
  private FragmentFixtures() {}

  /** Every optional field set, two data files, a unicode path. */
  public static FragmentMetadata full() {
    return new FragmentMetadata(
        7,
        List.of(
            new DataFile(
                "data/ünïcode-数据-\uD83D\uDE00.lance",
                new int[] {0, 1, 2},
                new int[] {0, 1, 2},
                2,
                1,
                5_000_000_000L,
                3),
            new DataFile("data/b.lance", new int[] {3, -1}, new int[] {0}, 2, 2, null, null)),
        5_000_000_000L,
        new DeletionFile(9, 4, 12L, DeletionFileType.BITMAP, 1),
        new RowIdMeta("{\"Inline\":[1,2,3]}"),
        new VersionMeta("{\"Inline\":[1]}"),
        new VersionMeta("{\"Inline\":[2]}"));
  }

  /** A deletion file whose optional fields are null, no row ids, no version metadata. */
  public static FragmentMetadata nullDeletionFields() {
    return new FragmentMetadata(
        Integer.MAX_VALUE,
        List.of(new DataFile("c.lance", new int[] {0}, new int[] {0}, 2, 0, 0L, null)),
        1L,
        new DeletionFile(Long.MAX_VALUE, 0, null, null, null),
        null,
        null,
        null);
  }

  /** No deletion file, an empty field list. */
  public static FragmentMetadata bare() {
    return new FragmentMetadata(
        0, List.of(new DataFile("", new int[0], new int[0], 0, 0, null, null)), 0L, null, null);
  }

  public static List<FragmentMetadata> all() {
    return List.of(full(), nullDeletionFields(), bare());
  }
}
