package dev.flinklance.paimon;

import java.io.Serializable;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

/**
 * The changelog both primary-key tables take, change {@code g} a pure function of {@code g} and the
 * seed: changes {@code 0 .. rows-1} insert ids {@code 0 .. rows-1} (the initial load); each later
 * change is, at random, an update (8 in 10) or a delete (1 in 10) of one of the initial ids, or an
 * insert (1 in 10) of the new id {@code g}. An update of an id deleted before inserts it again, as
 * an upsert does. A delete carries the key only, as upsert sources send them. Rows are {@code id
 * BIGINT NOT NULL, payload STRING (100 ASCII characters), score DOUBLE, qty INT}, their values a
 * function of the id and the change that wrote them, so that a stale row differs.
 */
final class Changes implements Serializable {
  private static final long serialVersionUID = 1L;

  static final String COLUMNS =
      "id BIGINT NOT NULL, payload STRING, score DOUBLE, qty INT, PRIMARY KEY (id) NOT ENFORCED";
  static final int PAYLOAD_LENGTH = 100;
  static final TypeInformation<Row> TYPE =
      Types.ROW_NAMED(
          new String[] {"id", "payload", "score", "qty"},
          Types.LONG,
          Types.STRING,
          Types.DOUBLE,
          Types.INT);

  enum Kind {
    INSERT,
    UPDATE,
    DELETE
  }

  final long seed;
  final long rows;
  final long changes;

  Changes(long seed, long rows, long changes) {
    this.seed = seed;
    this.rows = rows;
    this.changes = changes;
  }

  static Schema schema() {
    return Schema.newBuilder()
        .column("id", DataTypes.BIGINT().notNull())
        .column("payload", DataTypes.STRING())
        .column("score", DataTypes.DOUBLE())
        .column("qty", DataTypes.INT())
        .primaryKey("id")
        .build();
  }

  Kind kind(long g) {
    if (g < rows) {
      return Kind.INSERT;
    }
    long dice = Long.remainderUnsigned(hash(g), 10);
    return dice == 0 ? Kind.INSERT : dice == 1 ? Kind.DELETE : Kind.UPDATE;
  }

  /** The id change {@code g} writes or deletes. */
  long id(long g) {
    return kind(g) == Kind.INSERT ? g : Long.remainderUnsigned(mix(hash(g)), rows);
  }

  /** Change {@code g} as the sources emit it. */
  Row change(long g) {
    long id = id(g);
    return switch (kind(g)) {
      case INSERT -> row(RowKind.INSERT, id, g);
      case UPDATE -> row(RowKind.UPDATE_AFTER, id, g);
      case DELETE -> Row.ofKind(RowKind.DELETE, id, null, null, null);
    };
  }

  /** The row change {@code g} writes for {@code id}. */
  static Row row(RowKind kind, long id, long g) {
    long h = mix(id * 0x9E3779B97F4A7C15L + g);
    StringBuilder payload = new StringBuilder(PAYLOAD_LENGTH + 16);
    payload.append(id).append('-').append(g).append('-');
    while (payload.length() < PAYLOAD_LENGTH) {
      payload.append(Long.toHexString(h));
      h = mix(h);
    }
    payload.setLength(PAYLOAD_LENGTH);
    return Row.ofKind(
        kind,
        id,
        payload.toString(),
        (h >>> 11) * 0x1.0p-53 * 1000,
        (int) Long.remainderUnsigned(h, 1000));
  }

  /** The source of changes {@code first .. first+count-1}. */
  GeneratorFunction<Long, Row> from(long first) {
    return i -> change(first + i);
  }

  private long hash(long g) {
    return mix(seed * 0xBF58476D1CE4E5B9L + g);
  }

  /** SplitMix64's finalizer: consecutive inputs give unrelated outputs. */
  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
