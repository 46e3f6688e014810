package dev.flinklance.table.catalog;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.ObjectPath;

/**
 * A table named in a procedure's string argument, quoted as Flink SQL quotes identifiers: {@code t}
 * (the catalog's default database), {@code db.t}, and backticks around a part that holds a {@code
 * .} ({@code `x.y`}, {@code db.`x.y`}), with a backtick inside written twice.
 */
final class TableArgument {
  private static final String RULES =
      "name a table as 'table' or 'database.table', and put backticks around a part that holds"
          + " a '.' (e.g. 'db.`x.y`'; a backtick inside backticks is written twice)";

  private TableArgument() {}

  /**
   * @throws ValidationException if the argument is not one or two parts
   */
  static ObjectPath parse(String argument, String defaultDatabase) {
    List<String> parts = parts(argument);
    if (parts.size() == 1) {
      return new ObjectPath(defaultDatabase, parts.get(0));
    }
    if (parts.size() == 2) {
      return new ObjectPath(parts.get(0), parts.get(1));
    }
    throw invalid(argument, "it has " + parts.size() + " parts");
  }

  /** {@code db.t}, quoted so that {@link #parse} reads it back. */
  static String format(ObjectPath path) {
    return quoted(path.getDatabaseName()) + "." + quoted(path.getObjectName());
  }

  private static String quoted(String part) {
    return part.contains(".") || part.contains("`") || part.isEmpty()
        ? "`" + part.replace("`", "``") + "`"
        : part;
  }

  private static List<String> parts(String argument) {
    if (argument == null) {
      throw invalid(null, "it is NULL");
    }
    List<String> parts = new ArrayList<>();
    StringBuilder part = new StringBuilder();
    boolean quoted = false;
    boolean wasQuoted = false;
    for (int i = 0; i < argument.length(); i++) {
      char c = argument.charAt(i);
      if (quoted) {
        if (c == '`' && i + 1 < argument.length() && argument.charAt(i + 1) == '`') {
          part.append('`');
          i++;
        } else if (c == '`') {
          quoted = false;
        } else {
          part.append(c);
        }
      } else if (c == '`' && part.isEmpty() && !wasQuoted) {
        quoted = true;
        wasQuoted = true;
      } else if (c == '.') {
        parts.add(checked(argument, part.toString()));
        part.setLength(0);
        wasQuoted = false;
      } else if (c == '`' || wasQuoted) {
        throw invalid(argument, "a backtick opens or closes a part in its middle");
      } else {
        part.append(c);
      }
    }
    if (quoted) {
      throw invalid(argument, "a backtick is not closed");
    }
    parts.add(checked(argument, part.toString()));
    return parts;
  }

  private static String checked(String argument, String part) {
    if (part.isEmpty()) {
      throw invalid(argument, "it has an empty part");
    }
    return part;
  }

  private static ValidationException invalid(String argument, String problem) {
    return new ValidationException(
        String.format("Invalid table argument '%s': %s; %s", argument, problem, RULES));
  }
}
