package dev.flinklance.testing;

import java.util.ArrayList;
import java.util.List;

/**
 * The statements of a SQL text as Flink's SQL client splits them: a {@code ;} outside string
 * literals, quoted identifiers and comments ends a statement, wherever it stands on a line. Line
 * comments ({@code --}) are dropped, so a statement starts with its first keyword; block comments
 * stay, since hints such as {@code OPTIONS(...)} are block comments.
 */
public final class SqlStatements {

  /** One statement, without its {@code ;}, and the line (1-based) of the text it starts on. */
  public record Statement(String sql, int line) {}

  private final String text;
  private final List<Statement> statements = new ArrayList<>();
  private final StringBuilder current = new StringBuilder();
  private int position;
  private int line = 1;
  private int startLine;

  private SqlStatements(String text) {
    this.text = text;
  }

  /**
   * @throws IllegalArgumentException for text after the last {@code ;}, or an unterminated string,
   *     quoted identifier or comment
   */
  public static List<Statement> split(String text) {
    SqlStatements splitter = new SqlStatements(text);
    splitter.run();
    return splitter.statements;
  }

  private void run() {
    while (position < text.length()) {
      char c = text.charAt(position);
      if (text.startsWith("--", position)) {
        int end = text.indexOf('\n', position);
        position = end < 0 ? text.length() : end;
      } else if (text.startsWith("/*", position)) {
        copyThrough("*/", "comment");
      } else if (c == '\'' || c == '"' || c == '`') {
        copyQuoted(c);
      } else if (c == ';') {
        end();
        position++;
      } else {
        copy(c);
      }
    }
    if (!current.toString().isBlank()) {
      throw new IllegalArgumentException(
          "line "
              + startLine
              + ": statement without a ';' at its end: "
              + current.toString().strip());
    }
  }

  private void copy(char c) {
    if (current.toString().isBlank() && !Character.isWhitespace(c)) {
      startLine = line;
    }
    current.append(c);
    if (c == '\n') {
      line++;
    }
    position++;
  }

  private void copyThrough(String terminator, String what) {
    int opened = line;
    int end = text.indexOf(terminator, position + terminator.length());
    if (end < 0) {
      throw new IllegalArgumentException("line " + opened + ": unterminated " + what);
    }
    while (position < end + terminator.length()) {
      copy(text.charAt(position));
    }
  }

  /** A literal or identifier in {@code quote}s; a doubled quote inside is an escaped one. */
  private void copyQuoted(char quote) {
    int opened = line;
    copy(quote);
    while (true) {
      if (position >= text.length()) {
        throw new IllegalArgumentException(
            "line " + opened + ": unterminated " + quote + "..." + quote);
      }
      char c = text.charAt(position);
      copy(c);
      if (c == quote) {
        if (position < text.length() && text.charAt(position) == quote) {
          copy(quote);
        } else {
          return;
        }
      }
    }
  }

  private void end() {
    String statement = current.toString().strip();
    if (!statement.isEmpty()) {
      statements.add(new Statement(statement, startLine));
    }
    current.setLength(0);
  }
}
