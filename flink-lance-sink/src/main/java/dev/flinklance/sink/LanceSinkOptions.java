package dev.flinklance.sink;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;

/**
 * The sink's own options ({@code sink.*}). Which table, and how to create it, are {@link
 * dev.flinklance.access.LanceDatasetOptions}. The DataStream builder and the SQL connector write
 * the same keys into one {@link org.apache.flink.configuration.Configuration}; {@link
 * LanceSinkConfig} validates it in one place.
 */
@PublicEvolving
public final class LanceSinkOptions {

  public static final ConfigOption<String> SINK_COMMIT_USER =
      ConfigOptions.key("sink.commit-user")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "Identity stamped on every commit, used to recognise the sink's commits in the"
                  + " table's history. Default: a UUID created on the sink's first run and kept in"
                  + " Flink state. Two sinks writing one table must use different commit users.");

  public static final ConfigOption<Integer> SINK_MAX_ROWS_PER_FILE =
      ConfigOptions.key("sink.max-rows-per-file")
          .intType()
          .defaultValue(1_000_000)
          .withDescription("A writer rolls to a new fragment file after this many rows.");

  public static final ConfigOption<MemorySize> SINK_MAX_FILE_SIZE =
      ConfigOptions.key("sink.max-file-size")
          .memoryType()
          .defaultValue(MemorySize.parse("1 gb"))
          .withDescription(
              "A writer rolls to a new fragment file once its current file reaches this size."
                  + " Between checkpoints a writer writes one file unless it rolls.");

  public static final ConfigOption<MemorySize> SINK_MAX_BUFFER_SIZE =
      ConfigOptions.key("sink.max-buffer-size")
          .memoryType()
          .defaultValue(MemorySize.ofMebiBytes(64))
          .withDescription(
              "Arrow memory of a writer (minimum 2 mb): half for the batch it fills, half for what"
                  + " Lance holds while it encodes the fragment file (the batch it took, and data"
                  + " not yet written as pages). Lance's encoder needs native memory of its own.");

  public static final ConfigOption<InvalidRecordPolicy> SINK_ON_INVALID_RECORD =
      ConfigOptions.key("sink.on-invalid-record")
          .enumType(InvalidRecordPolicy.class)
          .defaultValue(InvalidRecordPolicy.FAIL)
          .withDescription(
              "What a writer does with a record it cannot write (a null in a NOT NULL column, a"
                  + " vector of the wrong dimension, a value out of range): FAIL fails the job at"
                  + " once, without restarts; SKIP leaves the record out, counts it in the"
                  + " writer's numRecordsSendErrors metric and logs it (rate-limited) with its"
                  + " column and record number. Retractions (DELETE, UPDATE_BEFORE) into a sink"
                  + " without a primary key always fail.");

  public static final ConfigOption<SchemaEvolutionMode> SINK_SCHEMA_EVOLUTION =
      ConfigOptions.key("sink.schema-evolution")
          .enumType(SchemaEvolutionMode.class)
          .defaultValue(SchemaEvolutionMode.NONE)
          .withDescription(
              "What the sink does at start with columns of its row type (and fields of its ROW"
                  + " columns) that an existing table lacks: none fails the job, naming the table"
                  + " and the columns; add-columns adds them to the table, nullable, in one commit"
                  + " before the sink's first (older rows read them as NULL; a NOT NULL column"
                  + " cannot be added and fails the job). The default is none because adding a"
                  + " column changes a table every other reader and writer shares, and a job's"
                  + " row type changed by mistake should not widen it: opt in per job. Either way"
                  + " the sink writes NULL into nullable table columns its rows lack (added by"
                  + " another client, also while the job runs), and fails when a column it writes"
                  + " was dropped, renamed or retyped in the table.");

  public static final ConfigOption<Integer> SINK_COMMIT_MAX_CONFLICT_RETRIES =
      ConfigOptions.key("sink.commit.max-conflict-retries")
          .intType()
          .defaultValue(20)
          .withDescription(
              "How often Lance retries a commit that conflicts with a concurrent writer before"
                  + " the committer gives up on the attempt.");

  public static final ConfigOption<Integer> SINK_COMMIT_MAX_ATTEMPTS =
      ConfigOptions.key("sink.commit.max-attempts")
          .intType()
          .defaultValue(5)
          .withDescription(
              "How often the committer tries one checkpoint's commit when Lance fails with an"
                  + " error that may pass (an object-store error), with exponential backoff from"
                  + " 500 ms to 8 s. Before each retry it checks whether the failed attempt landed"
                  + " after all. A permanent error (access denied, a missing bucket) fails at"
                  + " once; a commit that still conflicts with concurrent writers after"
                  + " sink.commit.max-conflict-retries is handed back to Flink, which retries it at"
                  + " once, 10 times. When all attempts fail the job fails and, after its restart,"
                  + " the commit is replayed.");

  public static final ConfigOption<Integer> SINK_COMMIT_DEDUPE_MAX_VERSIONS =
      ConfigOptions.key("sink.commit.dedupe.max-versions")
          .intType()
          .defaultValue(10_000)
          .withDescription(
              "How many table versions the committer reads back, newest first, to find out"
                  + " whether a commit that may have landed (restored after a failure, or retried)"
                  + " is in the table. If the search ends without an answer (bound reached, older"
                  + " versions cleaned up) it logs a WARN and commits.");

  public static final ConfigOption<MemorySize> SINK_UPSERT_MAX_BUFFER_SIZE =
      ConfigOptions.key("sink.upsert.max-buffer-size")
          .memoryType()
          .defaultValue(MemorySize.ofMebiBytes(256))
          .withDescription(
              "A sink with a primary key: memory a writer holds for one checkpoint's changes, the"
                  + " latest row of each changed key (in Arrow, rows a later change of their key"
                  + " replaced included until the writer drops them) and the keys. A writer whose"
                  + " changes do not fit fails the job, naming this option: checkpoint more often,"
                  + " raise the sink's parallelism, or raise this (and the TaskManager's memory).");

  public static final ConfigOption<MemorySize> SINK_UPSERT_MAX_INLINE_KEYS_SIZE =
      ConfigOptions.key("sink.upsert.max-inline-keys-size")
          .memoryType()
          .defaultValue(MemorySize.parse("256kb"))
          .withDescription(
              "A sink with a primary key: the most bytes of changed keys one checkpoint's pending"
                  + " commit carries in Flink's state, shared by the writer subtasks. A subtask"
                  + " whose changed keys take more writes them to a key file under the table's"
                  + " _keys/ directory (local disk and S3; other stores keep them inline), named"
                  + " in the commit and deleted once it landed, so that the state of a checkpoint"
                  + " stays small however many keys it changed (Flink's default checkpoint storage"
                  + " takes at most 5 MB). 0: always a key file.");

  public static final ConfigOption<Boolean> SINK_UPSERT_KEY_INDEX =
      ConfigOptions.key("sink.upsert.key-index")
          .booleanType()
          .defaultValue(true)
          .withDescription(
              "A sink with a primary key: before its first commit, build a Lance BTree index over"
                  + " each primary key column that has none (on a new table and on an existing"
                  + " one), and add the rows of later commits to it once they are many. A commit"
                  + " finds the rows of a few keys through the index instead of scanning the key"
                  + " columns. false: build none (an index built otherwise is used and kept up to"
                  + " date all the same).");

  private LanceSinkOptions() {}
}
