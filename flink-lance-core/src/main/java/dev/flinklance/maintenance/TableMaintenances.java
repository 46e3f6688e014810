package dev.flinklance.maintenance;

import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ReadableConfig;

/** The {@link TableMaintenance} implementations on the class path. */
@Internal
public final class TableMaintenances {
  /**
   * The maintenance modules there are, by option prefix, so that an option of a module missing from
   * the class path fails instead of being ignored.
   */
  private static final Map<String, String> MODULES = Map.of("compaction.", "flink-lance-compactor");

  private TableMaintenances() {}

  public static List<TableMaintenance> available() {
    return ServiceLoader.load(TableMaintenance.class, TableMaintenance.class.getClassLoader())
        .stream()
        .map(ServiceLoader.Provider::get)
        .toList();
  }

  /** The maintenances the options switch on. */
  public static List<TableMaintenance> enabled(ReadableConfig options) {
    return available().stream().filter(maintenance -> maintenance.isEnabled(options)).toList();
  }

  /**
   * @throws IllegalArgumentException for an invalid option, or options of a maintenance whose
   *     module is not on the class path
   */
  public static void validate(ReadableConfig options) {
    List<TableMaintenance> maintenances = available();
    Map<String, String> keys = options.toMap();
    MODULES.forEach(
        (prefix, module) -> {
          boolean used = keys.keySet().stream().anyMatch(key -> key.startsWith(prefix));
          boolean provided = maintenances.stream().anyMatch(m -> m.optionPrefix().equals(prefix));
          if (used && !provided) {
            throw new IllegalArgumentException(
                String.format(
                    "Lance sink options '%s*' need %s on the class path (it is in the"
                        + " flink-sql-connector-lance jar)",
                    prefix, module));
          }
        });
    maintenances.forEach(maintenance -> maintenance.validate(options));
  }
}
