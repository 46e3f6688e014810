package dev.flinklance.e2e.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The statements of a SQL script as the SQL client reads it: ';' ends a statement at a line end.
 */
public final class SqlScript {
  private SqlScript() {}

  public static List<String> statements(Path script) throws IOException {
    List<String> statements = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (String line : Files.readAllLines(script)) {
      String trimmed = line.strip();
      if (trimmed.isEmpty() || trimmed.startsWith("--")) {
        continue;
      }
      current.append(line).append('\n');
      if (trimmed.endsWith(";")) {
        String statement = current.toString().strip();
        statements.add(statement.substring(0, statement.length() - 1));
        current.setLength(0);
      }
    }
    if (!current.toString().isBlank()) {
      throw new IllegalArgumentException(script + " ends without ';': " + current);
    }
    return statements;
  }
}
