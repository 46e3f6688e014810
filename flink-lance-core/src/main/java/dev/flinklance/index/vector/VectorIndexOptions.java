package dev.flinklance.index.vector;

import dev.flinklance.index.VectorMetric;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * How a vector index is built: the keys of {@code CALL <catalog>.sys.create_vector_index(...,
 * 'key=value,...')} and of {@code LanceVectorIndex} ({@code --<key> <value>} on its command line).
 * Options a type does not use are refused ({@link VectorIndexBuild}).
 */
@PublicEvolving
public final class VectorIndexOptions {

  public static final ConfigOption<VectorMetric> METRIC =
      ConfigOptions.key("metric")
          .enumType(VectorMetric.class)
          .defaultValue(VectorMetric.L2)
          .withDescription(
              "Metric the index is built for: l2, cosine or dot. A search with another metric"
                  + " cannot use the index.");

  public static final ConfigOption<String> NAME =
      ConfigOptions.key("name")
          .stringType()
          .noDefaultValue()
          .withDescription("Name of the index. Default: <column>_idx.");

  public static final ConfigOption<Boolean> REPLACE =
      ConfigOptions.key("replace")
          .booleanType()
          .defaultValue(true)
          .withDescription(
              "Replace an index of the same name (a rebuild). When false, an existing index of"
                  + " that name is an error.");

  public static final ConfigOption<Integer> NUM_PARTITIONS =
      ConfigOptions.key("num-partitions")
          .intType()
          .noDefaultValue()
          .withDescription(
              "IVF partitions (k-means clusters), at most the number of rows. Default: the square"
                  + " root of the number of rows.");

  public static final ConfigOption<Integer> NUM_SUB_VECTORS =
      ConfigOptions.key("num-sub-vectors")
          .intType()
          .noDefaultValue()
          .withDescription(
              "PQ sub-vectors (IVF_PQ, IVF_HNSW_PQ); must divide the dimension. More keep more of"
                  + " each vector and cost more memory. Default: dimension / 8 (dimension / 4, / 2"
                  + " or 1 when 8 does not divide it).");

  public static final ConfigOption<Integer> NUM_BITS =
      ConfigOptions.key("num-bits")
          .intType()
          .noDefaultValue()
          .withDescription(
              "Bits per code of the quantizer: PQ (IVF_PQ, IVF_HNSW_PQ) and SQ (IVF_SQ,"
                  + " IVF_HNSW_SQ) default to 8, RQ (IVF_RQ) to 1.");

  public static final ConfigOption<Integer> MAX_ITERATIONS =
      ConfigOptions.key("max-iterations")
          .intType()
          .noDefaultValue()
          .withDescription(
              "k-means iterations when training the partitions (and PQ codebooks). Default:"
                  + " Lance's (50).");

  public static final ConfigOption<Integer> SAMPLE_RATE =
      ConfigOptions.key("sample-rate")
          .intType()
          .noDefaultValue()
          .withDescription(
              "Training sample per partition (and per PQ centroid): sample-rate x partitions rows"
                  + " train the partitions. Default: Lance's (256).");

  public static final ConfigOption<Integer> HNSW_M =
      ConfigOptions.key("hnsw.m")
          .intType()
          .noDefaultValue()
          .withDescription(
              "Edges per node of the HNSW graphs (IVF_HNSW_*). Default: Lance's (20).");

  public static final ConfigOption<Integer> HNSW_EF_CONSTRUCTION =
      ConfigOptions.key("hnsw.ef-construction")
          .intType()
          .noDefaultValue()
          .withDescription(
              "Candidate list size while building the HNSW graphs (IVF_HNSW_*). Default: Lance's"
                  + " (150).");

  private VectorIndexOptions() {}
}
