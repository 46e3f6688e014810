package dev.flinklance.sink;

import dev.flinklance.access.VersionMark;
import dev.flinklance.commit.CommitStamp;
import dev.flinklance.key.PrimaryKey;
import dev.flinklance.key.RowKey;
import dev.flinklance.sink.committer.LanceCommittable;
import dev.flinklance.sink.committer.LanceCommittableSerializer;
import dev.flinklance.sink.dynamic.DynamicCommittable;
import dev.flinklance.sink.dynamic.DynamicCommittableSerializer;
import dev.flinklance.sink.dynamic.TableName;
import dev.flinklance.sink.dynamic.TableWriteResult;
import dev.flinklance.sink.dynamic.TableWriteResultSerializer;
import dev.flinklance.sink.keys.ChangedKeys;
import dev.flinklance.sink.writer.LanceWriteResult;
import dev.flinklance.sink.writer.LanceWriteResultSerializer;
import dev.flinklance.testing.FragmentFixtures;
import dev.flinklance.testing.SerializerSnapshots;
import java.util.List;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.RowType;

/**
 * The sink's formats: committables (in checkpoints and savepoints until committed) and write
 * results (on the wire only), of the single-table and the dynamic sink. Format 2 of committables,
 * the appending sink's before primary keys, is still read: its bytes were written by the serializer
 * of commit ccd6d13^ (the last with format 2) from {@link #append()}. How to add a format: {@link
 * SerializerSnapshots}.
 */
class SinkSerializerSnapshotsTest extends SerializerSnapshots {
  private static final LanceCommittableSerializer COMMITTABLES = new LanceCommittableSerializer();
  private static final LanceWriteResultSerializer WRITE_RESULTS = new LanceWriteResultSerializer();
  private static final TableWriteResultSerializer TABLE_WRITE_RESULTS =
      new TableWriteResultSerializer();
  private static final DynamicCommittableSerializer DYNAMIC_COMMITTABLES =
      new DynamicCommittableSerializer();
  private static final RowType KEY_TYPE =
      (RowType)
          DataTypes.ROW(
                  DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
                  DataTypes.FIELD("tenant", DataTypes.STRING().notNull()),
                  DataTypes.FIELD("day", DataTypes.DATE().notNull()))
              .getLogicalType();

  @Override
  protected List<Snapshot<?>> snapshots() {
    return List.of(
        Snapshot.older("lance-committable-append", COMMITTABLES, 2, append()),
        Snapshot.older("lance-committable-append", COMMITTABLES, 3, append()),
        Snapshot.older("lance-committable-upsert", COMMITTABLES, 3, upsert(inlineKeys())),
        Snapshot.current("lance-committable-append", COMMITTABLES, append()),
        Snapshot.current("lance-committable-upsert", COMMITTABLES, upsert(inlineKeys())),
        Snapshot.current("lance-committable-upsert-key-files", COMMITTABLES, upsert(keyFiles())),
        Snapshot.refused("lance-write-result-upsert", WRITE_RESULTS, 2),
        Snapshot.refused("lance-write-result-empty", WRITE_RESULTS, 2),
        Snapshot.current(
            "lance-write-result-upsert",
            WRITE_RESULTS,
            new LanceWriteResult(FragmentFixtures.all(), keyFiles())),
        Snapshot.current(
            "lance-write-result-empty",
            WRITE_RESULTS,
            new LanceWriteResult(List.of(), ChangedKeys.NONE)),
        Snapshot.older(
            "dynamic-committable-upsert",
            DYNAMIC_COMMITTABLES,
            1,
            dynamicUpsert(upsert(inlineKeys()))),
        Snapshot.older("dynamic-committable-append", DYNAMIC_COMMITTABLES, 1, dynamicAppend()),
        Snapshot.current(
            "dynamic-committable-upsert", DYNAMIC_COMMITTABLES, dynamicUpsert(upsert(keyFiles()))),
        Snapshot.current("dynamic-committable-append", DYNAMIC_COMMITTABLES, dynamicAppend()),
        Snapshot.refused("table-write-result-upsert", TABLE_WRITE_RESULTS, 1),
        Snapshot.current(
            "table-write-result-upsert",
            TABLE_WRITE_RESULTS,
            new TableWriteResult(
                new TableName("db", "t"),
                KEY_TYPE,
                new LanceWriteResult(FragmentFixtures.all(), keyFiles()))));
  }

  private static DynamicCommittable dynamicUpsert(LanceCommittable upsert) {
    return new DynamicCommittable(new TableName("db-ü", "t\uD83D\uDE00"), KEY_TYPE, upsert);
  }

  private static DynamicCommittable dynamicAppend() {
    return new DynamicCommittable(new TableName("db", "t"), null, append());
  }

  @Override
  protected Class<?> mainClass() {
    return LanceSink.class;
  }

  /** An appending sink's committable: no keys. */
  static LanceCommittable append() {
    return new LanceCommittable(
        new CommitStamp("commit-user-ü", "run-\uD83D\uDE00", Long.MAX_VALUE, 42, "job-1"),
        new VersionMark(17, 1_700_000_000_123_456_789L),
        false,
        FragmentFixtures.all());
  }

  /** An overwriting upsert into a table that did not exist, without a job id. */
  private static LanceCommittable upsert(ChangedKeys keys) {
    return new LanceCommittable(
        new CommitStamp("", "r", 1, Long.MIN_VALUE, null),
        VersionMark.NO_TABLE,
        true,
        List.of(FragmentFixtures.bare()),
        keys);
  }

  private static ChangedKeys inlineKeys() {
    return ChangedKeys.inline(keys());
  }

  /** Keys inline and in two files, one of them with a unicode name and as many keys as fit. */
  private static ChangedKeys keyFiles() {
    return new ChangedKeys(
        keys(),
        List.of(
            new ChangedKeys.KeyFile("_keys/0f8e-ü.keys", Integer.MAX_VALUE),
            new ChangedKeys.KeyFile("_keys/a.keys", 1)));
  }

  /** Keys of every kind: integers at both ends, unicode and empty strings, dates before 1970. */
  private static List<RowKey> keys() {
    PrimaryKey key =
        PrimaryKey.of(
            (RowType)
                DataTypes.ROW(
                        DataTypes.FIELD("id", DataTypes.BIGINT()),
                        DataTypes.FIELD("tenant", DataTypes.STRING()),
                        DataTypes.FIELD("day", DataTypes.DATE()))
                    .getLogicalType(),
            List.of("id", "tenant", "day"),
            "/t");
    return List.of(
        key.keyOf(GenericRowData.of(Long.MAX_VALUE, StringData.fromString("ünï-数据"), 20_000)),
        key.keyOf(GenericRowData.of(Long.MIN_VALUE, StringData.fromString(""), -1)),
        key.keyOf(GenericRowData.of(0L, StringData.fromString("a\u0000b"), 0)));
  }
}
