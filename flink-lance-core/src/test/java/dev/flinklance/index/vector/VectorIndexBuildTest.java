package dev.flinklance.index.vector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.access.TableRef;
import dev.flinklance.index.VectorColumn;
import dev.flinklance.index.VectorIndex;
import dev.flinklance.index.VectorMetric;
import dev.flinklance.index.vector.VectorIndexType.Quantizer;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.VectorTables;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.lance.Dataset;

/**
 * A vector index build from the user's options, on real tables: the options checked naming the
 * option, the defaults that follow the table, every type built with the parameters asked for, and
 * read back by the rebuild's reading of Lance's details as the same parameters.
 */
class VectorIndexBuildTest {
  private static final VectorTables TABLES = VectorTables.SMALL;

  @TempDir Path dir;

  private String table(int rows) {
    String uri = dir.resolve("t").toString();
    TABLES.create(uri, false);
    if (rows > 0) {
      TABLES.append(uri, 0, rows);
    }
    return uri;
  }

  /** Every option the type takes, none at its default. */
  private static Map<String, String> everyOption(VectorIndexType type) {
    Map<String, String> options = new HashMap<>();
    options.put("metric", "cosine");
    options.put("num-partitions", "4");
    options.put("max-iterations", "7");
    options.put("sample-rate", "64");
    switch (type.quantizer()) {
      case PQ -> {
        options.put("num-sub-vectors", "4");
        options.put("num-bits", "4");
      }
      case SQ -> options.put("num-bits", "8");
      case RQ -> options.put("num-bits", "1");
      case NONE -> {}
    }
    if (type.hnsw()) {
      options.put("hnsw.m", "12");
      options.put("hnsw.ef-construction", "99");
    }
    return options;
  }

  @ParameterizedTest
  @EnumSource(VectorIndexType.class)
  void everyTypeIsBuiltAsAskedAndTheRebuildReadsTheSameParametersBack(VectorIndexType type) {
    String uri = table(400);
    VectorIndexBuild build =
        VectorIndexBuild.of("v", type.name().toLowerCase(Locale.ROOT), everyOption(type));

    VectorIndexBuild.Built built = build.create(new TableRef(uri, Map.of()));

    VectorIndex index = built.index();
    assertThat(index.name()).isEqualTo("v_idx");
    assertThat(index.column()).isEqualTo("v");
    assertThat(index.type()).isEqualTo(type.name());
    assertThat(index.metric()).contains(VectorMetric.COSINE);
    assertThat(built.rowsIndexed()).isEqualTo(400);
    assertThat(built.tableVersion()).isEqualTo(LanceTestTables.latestVersion(uri));
    VectorIndexSpec asked = build.spec(new VectorColumn("v", 8), 400);
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open(uri, allocator)) {
      VectorIndexSpec read =
          VectorIndexRebuild.spec(index, dataset.getIndexStatistics(index.name()), 400);
      assertThat(read.type()).isEqualTo(type);
      assertThat(read.metric()).isEqualTo(VectorMetric.COSINE);
      assertThat(read.ivf().partitions()).isEqualTo(asked.ivf().partitions()).isEqualTo(4);
      assertThat(read.ivf().maxIterations()).isEqualTo(asked.ivf().maxIterations()).isEqualTo(7);
      assertThat(read.ivf().sampleRate()).isEqualTo(asked.ivf().sampleRate()).isEqualTo(64);
      assertThat(read.ivf().centroids()).hasSize(4 * 8);
      assertThat(read.quantization())
          .usingRecursiveComparison()
          .ignoringFields("kmeansRedos") // not an option; Lance records its default, 1
          .isEqualTo(asked.quantization());
      if (type.hnsw()) {
        assertThat(read.hnsw().m()).isEqualTo(asked.hnsw().m()).isEqualTo(12);
        assertThat(read.hnsw().efConstruction())
            .isEqualTo(asked.hnsw().efConstruction())
            .isEqualTo(99);
      } else {
        assertThat(read.hnsw()).isNull();
      }
    }
  }

  @Test
  void theDefaultsFollowTheTable() {
    VectorIndexBuild pq = VectorIndexBuild.of("v", "IVF_PQ", Map.of());
    assertThat(pq.name()).isEqualTo("v_idx");
    assertThat(pq.replace()).isTrue();
    assertThat(pq.metric()).isEqualTo(VectorMetric.L2);
    VectorIndexSpec spec = pq.spec(new VectorColumn("v", 12), 2_000);
    assertThat(spec.ivf().partitions()).as("the square root of the rows").isEqualTo(45);
    assertThat(spec.ivf().maxIterations()).isNull();
    assertThat(spec.quantization().subVectors()).as("12 / 4: 8 does not divide 12").isEqualTo(3);
    assertThat(spec.quantization().bits()).isEqualTo(8);
    assertThat(pq.spec(new VectorColumn("v", 7), 2).quantization().subVectors()).isEqualTo(1);
    assertThat(pq.spec(new VectorColumn("v", 8), 2).ivf().partitions()).isEqualTo(1);

    VectorColumn column = new VectorColumn("v", 8);
    assertThat(VectorIndexBuild.of("v", "IVF_SQ", Map.of()).spec(column, 9).quantization().bits())
        .isEqualTo(8);
    assertThat(VectorIndexBuild.of("v", "IVF_RQ", Map.of()).spec(column, 9).quantization().bits())
        .isEqualTo(1);
    assertThat(VectorIndexBuild.of("v", "IVF_FLAT", Map.of()).spec(column, 9).quantization())
        .isNull();
    VectorIndexSpec hnsw = VectorIndexBuild.of("v", "IVF_HNSW_SQ", Map.of()).spec(column, 9);
    assertThat(hnsw.type().quantizer()).isEqualTo(Quantizer.SQ);
    assertThat(hnsw.hnsw()).isEqualTo(new VectorIndexSpec.Hnsw(null, null, null, null));
  }

  @Test
  void badOptionsAreRefusedNamingTheOption() {
    assertThatThrownBy(() -> VectorIndexBuild.of("v", "IVF_HNSW_FLAT", Map.of()))
        .hasMessage(
            "Unknown vector index type 'IVF_HNSW_FLAT'; the types are [IVF_FLAT, IVF_SQ, IVF_PQ,"
                + " IVF_RQ, IVF_HNSW_SQ, IVF_HNSW_PQ]");
    assertThatThrownBy(() -> VectorIndexBuild.of("v", "IVF_PQ", Map.of("partitions", "4")))
        .hasMessageStartingWith(
            "Unknown vector index option 'partitions'; the options are [metric, name, replace,");
    assertThatThrownBy(() -> VectorIndexBuild.of("v", "IVF_FLAT", Map.of("num-bits", "8")))
        .hasMessage("Invalid vector index option 'num-bits': does not apply to IVF_FLAT indexes");
    assertThatThrownBy(() -> VectorIndexBuild.of("v", "IVF_PQ", Map.of("hnsw.m", "8")))
        .hasMessage("Invalid vector index option 'hnsw.m': does not apply to IVF_PQ indexes");
    assertThatThrownBy(() -> VectorIndexBuild.of("v", "IVF_PQ", Map.of("num-partitions", "0")))
        .hasMessage("Invalid vector index option 'num-partitions': must be positive, got 0");
    assertThatThrownBy(() -> VectorIndexBuild.of("v", "IVF_PQ", Map.of("metric", "manhattan")))
        .hasMessageStartingWith("Invalid vector index option 'metric': ");
    assertThatThrownBy(() -> VectorIndexBuild.of("v", "IVF_PQ", Map.of("name", " ")))
        .hasMessage("Invalid vector index option 'name': must not be blank");

    VectorColumn column = new VectorColumn("v", 8);
    VectorIndexBuild partitions = VectorIndexBuild.of("v", "IVF_PQ", Map.of("num-partitions", "5"));
    assertThatThrownBy(() -> partitions.spec(column, 4))
        .hasMessage(
            "Invalid vector index option 'num-partitions': 5 is more than the table's 4 rows");
    VectorIndexBuild subVectors =
        VectorIndexBuild.of("v", "IVF_PQ", Map.of("num-sub-vectors", "3"));
    assertThatThrownBy(() -> subVectors.spec(column, 4))
        .hasMessage(
            "Invalid vector index option 'num-sub-vectors': 3 does not divide the dimension 8");
  }

  @Test
  void aBuildTheTableCannotTakeLeavesItUnchanged() {
    String empty = table(0);
    TableRef table = new TableRef(empty, Map.of());
    VectorIndexBuild flat = VectorIndexBuild.of("v", "IVF_FLAT", Map.of("replace", "false"));
    assertThatThrownBy(() -> flat.create(table))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Lance table '"
                + table
                + "': the table has no rows to train a vector index on column 'v' with");
    TABLES.append(empty, 0, 20);
    assertThatThrownBy(() -> VectorIndexBuild.of("id", "IVF_FLAT", Map.of()).create(table))
        .hasMessageContaining("Column 'id' has type id: Int(64, true)")
        .hasMessageContaining("not a vector of floats");
    flat.create(table);
    long version = LanceTestTables.latestVersion(empty);

    assertThatThrownBy(() -> flat.create(table))
        .hasMessage(
            "Lance table '"
                + table
                + "': an index named 'v_idx' exists; set 'replace' = 'true' to rebuild it");
    assertThat(LanceTestTables.latestVersion(empty)).isEqualTo(version);
  }
}
