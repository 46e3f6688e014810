package dev.flinklance.testing;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.lance.Dataset;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.Query;
import org.lance.ipc.ScanOptions;

/** Lance's own {@code nearest} query, the reference the connector's vector search is checked by. */
public final class Neighbours {

  /** One neighbour found: the row's {@code id} column and its distance. */
  public record Hit(long id, double distance) {}

  private Neighbours() {}

  /** The rows lance-core's {@code nearest} query finds in an open dataset, nearest first. */
  public static List<Hit> nearest(Dataset dataset, Query query) {
    List<Hit> hits = new ArrayList<>();
    try (LanceScanner scanner =
            dataset.newScan(
                new ScanOptions.Builder()
                    .nearest(query)
                    .columns(List.of("id", "_distance"))
                    .build());
        ArrowReader reader = scanner.scanBatches()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        BigIntVector ids = (BigIntVector) root.getVector("id");
        Float4Vector distances = (Float4Vector) root.getVector("_distance");
        for (int i = 0; i < root.getRowCount(); i++) {
          hits.add(new Hit(ids.get(i), distances.get(i)));
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException("nearest on " + dataset.uri() + " failed", e);
    }
    return hits;
  }
}
