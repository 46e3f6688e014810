package dev.flinklance.table.catalog.procedure;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.procedures.Procedure;

/**
 * The procedures of the Lance catalog's {@code sys} database: {@code CALL lake.sys.<name>(...)}.
 *
 * <p>Adding one is one line in {@link #PROCEDURES}: its name and a constructor taking the {@link
 * TableResolver} it uses to find tables. A procedure is a public class implementing {@link
 * Procedure} with a {@code call(ProcedureContext, ...)} method (see {@link CreateTagProcedure} and
 * Flink's FLIP-311), and gets a row in docs/sql.md.
 */
@Internal
public final class LanceProcedures {
  public static final String DATABASE = "sys";

  private static final Map<String, Function<TableResolver, Procedure>> PROCEDURES =
      new TreeMap<>(
          Map.of(
              "compact", CompactProcedure::new,
              "create_scalar_index", CreateScalarIndexProcedure::new,
              "create_tag", CreateTagProcedure::new,
              "create_vector_index", CreateVectorIndexProcedure::new,
              "delete_tag", DeleteTagProcedure::new));

  private LanceProcedures() {}

  public static List<String> names() {
    return List.copyOf(PROCEDURES.keySet());
  }

  public static Optional<Procedure> get(String name, TableResolver tables) {
    return Optional.ofNullable(PROCEDURES.get(name)).map(create -> create.apply(tables));
  }
}
