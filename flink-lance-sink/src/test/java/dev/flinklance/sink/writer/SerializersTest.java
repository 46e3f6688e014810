package dev.flinklance.sink.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.access.VersionMark;
import dev.flinklance.commit.CommitStamp;
import dev.flinklance.sink.committer.LanceCommittable;
import dev.flinklance.sink.committer.LanceCommittableSerializer;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.lance.FragmentMetadata;
import org.lance.fragment.DataFile;
import org.lance.fragment.DeletionFile;
import org.lance.fragment.DeletionFileType;
import org.lance.fragment.RowIdMeta;
import org.lance.fragment.VersionMeta;

/** Write results and committables survive the wire and the state backend field for field. */
class SerializersTest {

  /** Every optional field set, and a row-id JSON larger than DataOutput.writeUTF allows. */
  static FragmentMetadata fullFragment() {
    return new FragmentMetadata(
        7,
        List.of(
            new DataFile("a.lance", new int[] {0, 1, 2}, new int[] {0, 1, 2}, 2, 1, 1234L, 3),
            new DataFile("b.lance", new int[] {3}, new int[] {0}, 2, 2, null, null)),
        500L,
        new DeletionFile(9, 4, 12L, DeletionFileType.BITMAP, 1),
        new RowIdMeta("{\"Inline\":\"" + "x".repeat(70_000) + "\"}"),
        new VersionMeta("{\"Inline\":[1]}"),
        new VersionMeta("{\"Inline\":[2]}"));
  }

  static FragmentMetadata bareFragment() {
    return new FragmentMetadata(
        0,
        List.of(new DataFile("c.lance", new int[] {0}, new int[] {0}, 2, 1, 10L, null)),
        1L,
        null,
        null);
  }

  @Test
  void writeResultRoundTrips() throws IOException {
    LanceWriteResultSerializer serializer = new LanceWriteResultSerializer();
    LanceWriteResult result = new LanceWriteResult(List.of(fullFragment(), bareFragment()));
    LanceWriteResult back =
        serializer.deserialize(serializer.getVersion(), serializer.serialize(result));
    assertThat(back.fragments()).containsExactly(fullFragment(), bareFragment());
  }

  @Test
  void committableRoundTrips() throws IOException {
    LanceCommittableSerializer serializer = new LanceCommittableSerializer();
    LanceCommittable committable =
        new LanceCommittable(
            new CommitStamp("user", "run-1", 3, 42, "job-1"),
            new VersionMark(17, 1_700_000_000_123_456_789L),
            true,
            List.of(fullFragment(), bareFragment()));
    LanceCommittable back =
        serializer.deserialize(serializer.getVersion(), serializer.serialize(committable));
    assertThat(back).isEqualTo(committable);
    assertThat(back.toString())
        .isEqualTo(
            "LanceCommittable{commitUser=user, checkpointId=42, run=run-1#3, overwrite,"
                + " fragments=2, rows=501}");
  }

  @Test
  void unknownVersionsAndTruncatedBytesAreRejected() throws IOException {
    LanceCommittableSerializer serializer = new LanceCommittableSerializer();
    byte[] bytes =
        serializer.serialize(
            new LanceCommittable(
                new CommitStamp("u", "r", 1, 1, null),
                VersionMark.NO_TABLE,
                false,
                List.of(bareFragment())));
    assertThatThrownBy(() -> serializer.deserialize(1, bytes))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("have format 1; this connector reads format 4");
    byte[] truncated = java.util.Arrays.copyOf(bytes, bytes.length / 2);
    assertThatThrownBy(() -> serializer.deserialize(serializer.getVersion(), truncated))
        .isInstanceOf(IOException.class);
    assertThatThrownBy(() -> new LanceWriteResultSerializer().deserialize(4, new byte[0]))
        .hasMessageContaining("have format 4; this connector reads format 3");
  }
}
