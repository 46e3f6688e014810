package dev.flinklance.paimon;

import java.io.Serializable;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.types.Row;

/**
 * The feature table both lookup joins read, each row a function of its id ({@code 0 .. rows-1}):
 * {@code id BIGINT NOT NULL, tier STRING, score DOUBLE, embedding ARRAY<FLOAT>} of 16 floats (the
 * rows of the Lance-only lookup benchmark, bin/bench-lookup), and the stream that looks them up:
 * record {@code seq} (0, 1, 2, ...) looks up, 9 times in 10, one of the hot ids, and otherwise any
 * id, drawn from the seed.
 */
final class Features implements Serializable {
  private static final long serialVersionUID = 1L;

  static final String COLUMNS =
      "id BIGINT NOT NULL, tier STRING, score DOUBLE, embedding ARRAY<FLOAT>,"
          + " PRIMARY KEY (id) NOT ENFORCED";
  static final int DIMENSION = 16;
  static final TypeInformation<Row> TYPE =
      Types.ROW_NAMED(
          new String[] {"id", "tier", "score", "embedding"},
          Types.LONG,
          Types.STRING,
          Types.DOUBLE,
          Types.OBJECT_ARRAY(Types.FLOAT));
  static final TypeInformation<Row> PROBE_TYPE =
      Types.ROW_NAMED(new String[] {"seq", "k"}, Types.LONG, Types.LONG);

  final long seed;
  final long rows;
  final long hotKeys;

  /** {@code rows} feature rows, looked up 9 times in 10 on the first {@code hotKeys} ids. */
  Features(long seed, long rows, long hotKeys) {
    this.seed = seed;
    this.rows = rows;
    this.hotKeys = hotKeys;
  }

  static Schema schema() {
    return Schema.newBuilder()
        .column("id", DataTypes.BIGINT().notNull())
        .column("tier", DataTypes.STRING())
        .column("score", DataTypes.DOUBLE())
        .column("embedding", DataTypes.ARRAY(DataTypes.FLOAT()))
        .primaryKey("id")
        .build();
  }

  static Schema probeSchema() {
    return Schema.newBuilder()
        .column("seq", DataTypes.BIGINT())
        .column("k", DataTypes.BIGINT())
        .columnByExpression("proc_time", "PROCTIME()")
        .build();
  }

  static Row row(long id) {
    Float[] embedding = new Float[DIMENSION];
    for (int i = 0; i < DIMENSION; i++) {
      embedding[i] = (float) ((id * 31 + i) % 1000) / 1000f;
    }
    return Row.of(id, "tier-" + id % 5, id * 0.5, embedding);
  }

  /** The id record {@code seq} looks up. */
  long key(long seq) {
    long h = Changes.mix(seed * 0xBF58476D1CE4E5B9L + seq);
    return Long.remainderUnsigned(
        Changes.mix(h), Long.remainderUnsigned(h, 10) < 9 ? hotKeys : rows);
  }

  Row probe(long seq) {
    return Row.of(seq, key(seq));
  }
}
