package dev.flinklance.table.testing;

import dev.flinklance.testing.SqlStatements;
import dev.flinklance.testing.SqlStatements.Statement;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The SQL of a documentation file, in the order a reader meets it: every {@code ```sql} fenced
 * block of a Markdown file, and every hidden setup comment ({@code <!-- sql-setup: ... -->}); a
 * {@code .sql} file is one block. Each statement keeps the file's line number it starts on.
 */
public final class DocSql {
  /** A code fence's opening line (CommonMark: its info string holds no backtick). */
  private static final Pattern FENCE = Pattern.compile("^\\s*(```+)\\s*([^`\\s]*)[^`]*$");

  private static final String SETUP = "<!-- sql-setup:";

  /** One statement of a block or a setup comment, {@code where} as {@code file:line}. */
  public record DocStatement(String sql, String where, boolean hidden) {}

  private DocSql() {}

  public static List<DocStatement> statements(Path root, Path file) throws IOException {
    String name = root.relativize(file).toString();
    String text = Files.readString(file);
    if (name.endsWith(".sql")) {
      return from(name, text, 1, false);
    }
    List<DocStatement> statements = new ArrayList<>();
    String[] lines = text.split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      Matcher fence = FENCE.matcher(lines[i]);
      if (fence.matches()) {
        int end = closingFence(lines, i, fence.group(1), name);
        if (fence.group(2).equals("sql")) {
          statements.addAll(from(name, join(lines, i + 1, end), i + 2, false));
        }
        i = end;
      } else if (lines[i].strip().startsWith("<!-- sql")) {
        if (!lines[i].strip().startsWith(SETUP)) {
          throw new IllegalArgumentException(
              name + ":" + (i + 1) + ": unknown SQL comment (the one there is " + SETUP + " -->)");
        }
        int end = i;
        while (end < lines.length && !lines[end].contains("-->")) {
          end++;
        }
        if (end == lines.length) {
          throw new IllegalArgumentException(name + ":" + (i + 1) + ": " + SETUP + " without -->");
        }
        String setup = join(lines, i, end + 1);
        setup = setup.substring(setup.indexOf(SETUP) + SETUP.length(), setup.lastIndexOf("-->"));
        statements.addAll(from(name, setup, i + 1, true));
        i = end;
      }
    }
    return statements;
  }

  private static int closingFence(String[] lines, int open, String fence, String name) {
    for (int i = open + 1; i < lines.length; i++) {
      if (lines[i].strip().matches("`{" + fence.length() + ",}")) {
        return i;
      }
    }
    throw new IllegalArgumentException(name + ":" + (open + 1) + ": code block without its end");
  }

  private static String join(String[] lines, int from, int to) {
    return String.join("\n", List.of(lines).subList(from, to)) + "\n";
  }

  private static List<DocStatement> from(String name, String sql, int firstLine, boolean hidden) {
    List<DocStatement> statements = new ArrayList<>();
    try {
      for (Statement statement : SqlStatements.split(sql)) {
        statements.add(
            new DocStatement(
                statement.sql(), name + ":" + (firstLine + statement.line() - 1), hidden));
      }
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          name + " (SQL from line " + firstLine + "): " + e.getMessage(), e);
    }
    return statements;
  }
}
