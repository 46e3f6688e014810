package dev.flinklance.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.access.TableRef;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.S3TestServer;
import dev.flinklance.testing.TestFragments;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.lance.Fragment;
import org.lance.FragmentMetadata;

/**
 * The default request timeout does not cut large uploads short: it applies per HTTP request, and
 * Lance uploads a large file in parts.
 */
class ObjectStoreDefaultsITCase {
  private static final int MIB = 1 << 20;
  private static final int ROWS = 48; // one MiB each
  private static final Schema SCHEMA =
      new Schema(
          List.of(
              Field.notNullable("id", new ArrowType.Int(64, true)),
              Field.notNullable("payload", ArrowType.Binary.INSTANCE)));

  @RegisterExtension static final S3TestServer S3 = new S3TestServer();

  /**
   * 48 MiB over a 1 MiB/s link per connection: the file takes longer than the 10 s request timeout
   * (about 15 s here), each 5 MiB part about 5 s.
   */
  @Test
  void largeFragmentOverASlowLinkUploadsWithTheDefaults() {
    TableRef table = new TableRef(S3.newUri("large"), S3.storageOptions());
    Map<String, String> options = table.storageOptions();
    TestFragments.createTable(table.uri(), options, SCHEMA);

    S3.throttleUploads(MIB);
    List<FragmentMetadata> fragments;
    try {
      fragments = writeFragment(table.uri(), options);
    } finally {
      S3.throttleUploads(0);
    }
    LanceTestTables.appendFragments(table.uri(), options, fragments);

    assertThat(LanceTestTables.readLongs(table.uri(), options, "id"))
        .containsExactlyElementsOf(LongStream.range(0, ROWS).boxed().toList());
    assertThat(
            S3.requestCount(
                request ->
                    request.key().startsWith("large")
                        && request.query() != null
                        && request.query().contains("partNumber=")))
        .as("uploaded in parts")
        .isGreaterThanOrEqualTo(ROWS * MIB / (5L * MIB));
  }

  private static List<FragmentMetadata> writeFragment(String uri, Map<String, String> options) {
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
      root.allocateNew();
      Random random = new Random(42);
      byte[] payload = new byte[MIB]; // random: Lance stores it as it is
      for (int row = 0; row < ROWS; row++) {
        random.nextBytes(payload);
        ((BigIntVector) root.getVector("id")).setSafe(row, row);
        ((VarBinaryVector) root.getVector("payload")).setSafe(row, payload);
      }
      root.setRowCount(ROWS);
      return Fragment.write()
          .datasetUri(uri)
          .storageOptions(options)
          .allocator(allocator)
          .data(root)
          .execute();
    }
  }
}
