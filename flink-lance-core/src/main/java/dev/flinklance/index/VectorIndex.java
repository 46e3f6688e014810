package dev.flinklance.index;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.annotation.Internal;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.index.Index;
import org.lance.index.IndexDescription;
import org.lance.schema.LanceField;

/**
 * A vector index of one table version, as Lance describes it (lance-core 7.0.0: {@code
 * describeIndices}; the metric is in the index details, {@code "metric_type":"L2"}).
 *
 * @param type Lance's name of the index type: IVF_PQ, IVF_HNSW_SQ, ...
 * @param metric the metric the index was built for; empty if it is one no search here uses
 *     (hamming)
 * @param fragmentIds the fragments the index covers (all its segments together)
 * @param detailsJson Lance's details of the index: metric, quantizer and graph parameters, and the
 *     training parameters in {@code runtime_hints}
 */
@Internal
public record VectorIndex(
    String name,
    String column,
    String type,
    Optional<VectorMetric> metric,
    String lanceMetric,
    Set<Integer> fragmentIds,
    String detailsJson) {

  private static final String VECTOR_DETAILS = "VectorIndexDetails";
  private static final Pattern METRIC = Pattern.compile("\"metric_type\"\\s*:\\s*\"([^\"]+)\"");

  /** The vector indexes of the dataset's version. */
  public static List<VectorIndex> of(Dataset dataset) {
    List<LanceField> fields = dataset.getLanceSchema().fields();
    List<VectorIndex> indexes = new ArrayList<>();
    for (IndexDescription description : dataset.describeIndices()) {
      if (!description.getTypeUrl().endsWith(VECTOR_DETAILS)) {
        continue;
      }
      int fieldId = description.getFieldIds().get(0);
      String column =
          fields.stream()
              .filter(f -> f.getId() == fieldId)
              .map(LanceField::getName)
              .findFirst()
              .orElse("field id " + fieldId);
      String lanceMetric = lanceMetric(description.getDetailsJson());
      Set<Integer> covered = new HashSet<>();
      for (Index segment : description.getSegments()) {
        segment.fragments().ifPresent(covered::addAll);
      }
      indexes.add(
          new VectorIndex(
              description.getName(),
              column,
              description.getIndexType(),
              VectorMetric.fromLance(lanceMetric),
              lanceMetric,
              Set.copyOf(covered),
              description.getDetailsJson()));
    }
    return indexes;
  }

  /** The vector index on {@code column}, if there is one (Lance uses the first it finds). */
  public static Optional<VectorIndex> on(Dataset dataset, String column) {
    return of(dataset).stream().filter(index -> index.column().equals(column)).findFirst();
  }

  /** Whether some fragment of the dataset's version is not in the index (new since its build). */
  public boolean missesFragmentsOf(Dataset dataset) {
    for (Fragment fragment : dataset.getFragments()) {
      if (!fragmentIds.contains(fragment.getId())) {
        return true;
      }
    }
    return false;
  }

  private static String lanceMetric(String detailsJson) {
    Matcher matcher = METRIC.matcher(detailsJson == null ? "" : detailsJson);
    return matcher.find() ? matcher.group(1) : "unknown";
  }
}
