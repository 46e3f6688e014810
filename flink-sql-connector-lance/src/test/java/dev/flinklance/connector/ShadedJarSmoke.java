package dev.flinklance.connector;

import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.CommitBuilder;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.Transaction;
import org.lance.WriteParams;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;
import org.lance.operation.Append;

/**
 * Runs in a fresh JVM whose classpath is one shaded connector jar (plus this class): creates a
 * Lance table, writes a fragment through Arrow's C data interface, commits it and scans it back.
 * Prints one line the packaging test compares; any failure exits non-zero.
 *
 * <p>Only Lance and Arrow classes are used, so that every class comes from the shaded jar.
 */
public final class ShadedJarSmoke {
  static final int ROWS = 1000;

  private ShadedJarSmoke() {}

  public static void main(String[] args) throws Exception {
    String uri = args[0];
    Schema schema =
        new Schema(
            List.of(
                Field.notNullable("id", new ArrowType.Int(64, true)),
                Field.nullable("name", ArrowType.Utf8.INSTANCE),
                new Field(
                    "vec",
                    FieldType.nullable(new ArrowType.FixedSizeList(2)),
                    List.of(
                        Field.notNullable(
                            "item", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE))))));
    try (BufferAllocator allocator = new RootAllocator()) {
      try (Dataset created =
          Dataset.create(allocator, uri, schema, new WriteParams.Builder().build())) {
        // version 1, empty
      }
      List<FragmentMetadata> fragments;
      try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
        fill(root);
        fragments = Fragment.write().datasetUri(uri).allocator(allocator).data(root).execute();
      }
      try (Dataset dataset = Dataset.open().allocator(allocator).uri(uri).build();
          Transaction append =
              new Transaction.Builder()
                  .readVersion(dataset.version())
                  .operation(Append.builder().fragments(fragments).build())
                  .transactionProperties(Map.of("smoke", "shaded-jar"))
                  .build();
          Dataset committed = new CommitBuilder(dataset).execute(append)) {
        long idSum = 0;
        double vecSum = 0;
        long named = 0;
        try (LanceScanner scanner = committed.newScan(new ScanOptions.Builder().build());
            ArrowReader reader = scanner.scanBatches()) {
          while (reader.loadNextBatch()) {
            VectorSchemaRoot batch = reader.getVectorSchemaRoot();
            BigIntVector ids = (BigIntVector) batch.getVector("id");
            VarCharVector names = (VarCharVector) batch.getVector("name");
            FixedSizeListVector vecs = (FixedSizeListVector) batch.getVector("vec");
            Float4Vector items = (Float4Vector) vecs.getDataVector();
            for (int i = 0; i < batch.getRowCount(); i++) {
              idSum += ids.get(i);
              named += names.isNull(i) ? 0 : 1;
              vecSum += items.get(2 * i) + items.get(2 * i + 1);
            }
          }
        }
        System.out.printf(
            "version=%d rows=%d idSum=%d named=%d vecSum=%.1f%n",
            committed.version(), committed.countRows(), idSum, named, vecSum);
      }
    }
  }

  private static void fill(VectorSchemaRoot root) {
    BigIntVector ids = (BigIntVector) root.getVector("id");
    VarCharVector names = (VarCharVector) root.getVector("name");
    FixedSizeListVector vecs = (FixedSizeListVector) root.getVector("vec");
    ids.allocateNew(ROWS);
    names.allocateNew(ROWS);
    vecs.allocateNew();
    Float4Vector items = (Float4Vector) vecs.getDataVector();
    items.allocateNew(ROWS * 2);
    for (int i = 0; i < ROWS; i++) {
      ids.set(i, i);
      if (i % 2 == 0) {
        names.setSafe(i, ("name-" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8));
      } else {
        names.setNull(i);
      }
      vecs.setNotNull(i);
      items.setSafe(2 * i, 1.0f);
      items.setSafe(2 * i + 1, 0.5f);
    }
    items.setValueCount(ROWS * 2);
    vecs.setValueCount(ROWS);
    root.setRowCount(ROWS);
  }
}
