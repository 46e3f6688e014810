package dev.flinklance.filter;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.flink.annotation.Internal;

/**
 * Reads a filter in Lance's SQL dialect as text, telling string literals ({@code '...'}, {@code ''}
 * inside) and quoted names ({@code `...`}, {@code "..."}) from the rest, to say whether lance-core
 * 7.0.0 can take it. Measured with lance-core 7.0.0 (docs/lance-core.md):
 *
 * <ul>
 *   <li>Lance parses {@code SELECT 1 FROM t WHERE <filter>} with sqlparser, which gives up at 50
 *       levels of recursion ("Error parsing statement"). A parenthesised group costs one level, two
 *       on the right of an operator: {@code ((((id = 1))))} fails at 47 parentheses, {@code a OR (b
 *       AND (c OR (...)))} at 24 levels.
 *   <li>Lance plans a filter by recursion on the calling thread's stack, about 3 KiB per level of
 *       the expression tree: a flat chain of 323 ORs overflows a 1 MiB Java thread stack, and the
 *       JVM dies (SIGSEGV). An {@code IN} list is one level whatever its length (100,000 values
 *       measured).
 *   <li>A filter reaches Lance through JNI as modified UTF-8: NUL and characters outside the Basic
 *       Multilingual Plane fail with "invalid utf-8 sequence" ({@link #quote} writes them in string
 *       literals as {@code chr(n)}).
 * </ul>
 */
@Internal
public final class LanceSqlText {
  /** sqlparser's 50 levels, less the two the statement around the filter takes. */
  private static final int PARSER_DEPTH = 48;

  /**
   * The deepest expression tree accepted: about a third of what overflows a 1 MiB stack, leaving
   * room for the caller's own frames and smaller stacks.
   */
  public static final int MAX_OPERATOR_DEPTH = 100;

  private static final Set<String> LOGICAL_WORDS = Set.of("AND", "OR", "NOT");
  private static final Set<String> OPERATOR_WORDS = Set.of("IS", "IN", "LIKE", "ILIKE", "BETWEEN");
  private static final String COMPARISON_CHARS = "<>=!|";
  private static final String ARITHMETIC_CHARS = "+-*/%";

  private LanceSqlText() {}

  /**
   * @param parentheses the deepest nesting of parentheses
   * @param operatorDepth an upper bound of the depth of Lance's expression tree (see {@link Group})
   */
  public record Shape(int parentheses, int operatorDepth) {}

  /**
   * Whether Lance takes a filter written as the SQL connector writes them, where every operand of
   * AND and OR that is a chain or a NOT stands in parentheses and every NOT is followed by one:
   * sqlparser then recurses at most two levels per parenthesis, plus three.
   */
  public static boolean fitsWritten(String filter) {
    Shape shape = shape(filter);
    return 2 * shape.parentheses() + 3 <= PARSER_DEPTH
        && shape.operatorDepth() <= MAX_OPERATOR_DEPTH;
  }

  /**
   * {@code filter} as lance-core can receive it: each string literal holding NUL or a character
   * outside the Basic Multilingual Plane written again by {@link #quote} (the same string).
   *
   * @throws IllegalArgumentException if such a character stands outside a string literal, a literal
   *     holds an unpaired surrogate, or the filter nests deeper than Lance's planner can recurse
   */
  public static String forLance(String filter) {
    StringBuilder out = new StringBuilder(filter.length());
    int i = 0;
    while (i < filter.length()) {
      char c = filter.charAt(i);
      int closing = c == '\'' ? closingQuote(filter, i) : -1;
      if (closing > 0) {
        String value = filter.substring(i + 1, closing).replace("''", "'");
        out.append(needsRewrite(value) ? requote(value, filter) : filter.substring(i, closing + 1));
        i = closing + 1;
      } else if (c == 0 || Character.isSurrogate(c)) {
        throw new IllegalArgumentException(
            "Lance filter '"
                + abbreviate(filter)
                + "' has NUL or a character beyond the Basic Multilingual Plane in a name (not in a"
                + " string literal), which lance-core 7.0.0 cannot receive through JNI");
      } else {
        out.append(c);
        i++;
      }
    }
    String safe = out.toString();
    int depth = shape(safe).operatorDepth();
    if (depth > MAX_OPERATOR_DEPTH) {
      throw new IllegalArgumentException(
          String.format(
              "Lance filter '%s' nests up to %d operators deep, more than the %d Lance's planner"
                  + " can take safely (it recurses on the thread's stack): write long OR chains as"
                  + " IN lists, or group them in parentheses",
              abbreviate(safe), depth, MAX_OPERATOR_DEPTH));
    }
    return safe;
  }

  private static boolean needsRewrite(String value) {
    return value.chars().anyMatch(ch -> ch == 0 || Character.isSurrogate((char) ch));
  }

  private static String requote(String value, String filter) {
    try {
      return quote(value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "Lance filter '"
              + abbreviate(filter)
              + "' has a string literal with an unpaired surrogate",
          e);
    }
  }

  /**
   * A Lance SQL string expression of {@code value}. A filter reaches lance-core through JNI as
   * modified UTF-8, which encodes NUL and characters outside the Basic Multilingual Plane
   * differently from UTF-8, and lance-core 7.0.0 refuses it ("invalid utf-8 sequence"): those
   * characters are written as {@code chr(code point)}, concatenated with the rest; Lance folds the
   * concatenation into one literal before it compares.
   *
   * @throws IllegalArgumentException if {@code value} holds an unpaired surrogate (no UTF-8 string
   *     does)
   */
  public static String quote(String value) {
    if (!wellFormed(value)) {
      throw new IllegalArgumentException(
          "A string with an unpaired surrogate cannot be written for Lance: " + value);
    }
    List<String> parts = new ArrayList<>();
    StringBuilder plain = new StringBuilder();
    value
        .codePoints()
        .forEach(
            c -> {
              if (c != 0 && Character.isBmpCodePoint(c)) {
                plain.append((char) c);
                return;
              }
              if (plain.length() > 0) {
                parts.add(plainLiteral(plain.toString()));
                plain.setLength(0);
              }
              parts.add("chr(" + c + ")");
            });
    if (plain.length() > 0 || parts.isEmpty()) {
      parts.add(plainLiteral(plain.toString()));
    }
    return parts.size() == 1 ? parts.get(0) : "concat(" + String.join(", ", parts) + ")";
  }

  private static String plainLiteral(String value) {
    return "'" + value.replace("'", "''") + "'";
  }

  /** Whether every surrogate in {@code value} is half of a pair. */
  public static boolean wellFormed(String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < value.length()
          && Character.isLowSurrogate(value.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return false;
      }
    }
    return true;
  }

  private static String abbreviate(String filter) {
    return filter.length() <= 200 ? filter : filter.substring(0, 200) + "...";
  }

  public static Shape shape(String sql) {
    Deque<Group> groups = new ArrayDeque<>();
    groups.push(new Group());
    int parentheses = 0;
    int i = 0;
    while (i < sql.length()) {
      char c = sql.charAt(i);
      if (c == '\'' || c == '`' || c == '"') {
        i = endOfQuoted(sql, i);
      } else if (c == '(') {
        groups.push(new Group());
        parentheses = Math.max(parentheses, groups.size() - 1);
        i++;
      } else if (c == ')') {
        if (groups.size() > 1) {
          int depth = groups.pop().depth();
          groups.peek().child(depth);
        }
        i++;
      } else if (Character.isLetter(c) || c == '_') {
        int end = i;
        while (end < sql.length()
            && (Character.isLetterOrDigit(sql.charAt(end)) || sql.charAt(end) == '_')) {
          end++;
        }
        String word = sql.substring(i, end).toUpperCase(Locale.ROOT);
        if (LOGICAL_WORDS.contains(word)) {
          groups.peek().logical();
        } else if (OPERATOR_WORDS.contains(word)) {
          groups.peek().operator();
        }
        i = end;
      } else if (COMPARISON_CHARS.indexOf(c) >= 0) {
        while (i < sql.length() && COMPARISON_CHARS.indexOf(sql.charAt(i)) >= 0) {
          i++;
        }
        groups.peek().operator();
      } else {
        if (ARITHMETIC_CHARS.indexOf(c) >= 0) {
          groups.peek().operator();
        }
        i++;
      }
    }
    while (groups.size() > 1) {
      int depth = groups.pop().depth();
      groups.peek().child(depth);
    }
    return new Shape(parentheses, groups.pop().depth());
  }

  /**
   * One parenthesised group (or the whole text). Its tree has at most one node per AND, OR and NOT
   * on any path, then the nodes of one operand between them: its other operators and the deepest
   * group inside it.
   */
  private static final class Group {
    private int logical;
    private int operandOperators;
    private int operandChild;
    private int deepestOperand;

    void logical() {
      logical++;
      deepestOperand = Math.max(deepestOperand, operandOperators + operandChild);
      operandOperators = 0;
      operandChild = 0;
    }

    void operator() {
      operandOperators++;
    }

    void child(int depth) {
      operandChild = Math.max(operandChild, depth);
    }

    int depth() {
      return logical + Math.max(deepestOperand, operandOperators + operandChild) + 1;
    }
  }

  /** The index after the quoted text starting at {@code start}: its end if it is not closed. */
  private static int endOfQuoted(String sql, int start) {
    int closing = closingQuote(sql, start);
    return closing < 0 ? sql.length() : closing + 1;
  }

  /** The quote closing the one at {@code start} (a doubled quote stays inside), or -1. */
  private static int closingQuote(String sql, int start) {
    char quote = sql.charAt(start);
    int i = start + 1;
    while (i < sql.length()) {
      if (sql.charAt(i) == quote) {
        if (i + 1 < sql.length() && sql.charAt(i + 1) == quote) {
          i += 2;
          continue;
        }
        return i;
      }
      i++;
    }
    return -1;
  }
}
