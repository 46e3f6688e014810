package dev.flinklance.table.catalog.procedure;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.table.api.ValidationException;

/**
 * A procedure's options argument: one string of {@code key=value} pairs separated by commas, as
 * Paimon's procedures take them.
 */
final class ProcedureOptions {

  private ProcedureOptions() {}

  /**
   * @param options the argument, or null
   * @param example a valid argument, for the error message
   * @throws ValidationException for a pair without a key and {@code =}, or a key given twice
   */
  static Map<String, String> parse(String options, String example) {
    Map<String, String> parsed = new LinkedHashMap<>();
    if (options == null || options.isBlank()) {
      return parsed;
    }
    for (String pair : options.split(",")) {
      int equals = pair.indexOf('=');
      if (equals <= 0 || pair.substring(0, equals).isBlank()) {
        throw new ValidationException(
            String.format(
                "Procedure options are key=value pairs separated by commas, like '%s'; got '%s'",
                example, pair.trim()));
      }
      String key = pair.substring(0, equals).trim();
      if (parsed.put(key, pair.substring(equals + 1).trim()) != null) {
        throw new ValidationException(String.format("Option '%s' is given twice", key));
      }
    }
    return parsed;
  }
}
