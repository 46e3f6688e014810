package dev.flinklance.table.filter;

import dev.flinklance.arrow.read.LanceReadSchema;
import dev.flinklance.filter.LanceSqlText;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.expressions.CallExpression;
import org.apache.flink.table.expressions.FieldReferenceExpression;
import org.apache.flink.table.expressions.ResolvedExpression;
import org.apache.flink.table.expressions.ValueLiteralExpression;
import org.apache.flink.table.functions.BuiltInFunctionDefinitions;
import org.apache.flink.table.functions.FunctionDefinition;

/**
 * Translates Flink filter expressions into Lance SQL filters, only where Lance evaluates them
 * exactly as Flink does (checked against lance-core 7.0.0 on real tables, see {@code
 * docs/sql.md#pushdown}): comparisons of a column with a literal its type holds exactly, IN, IS
 * [NOT] NULL, IS [NOT] TRUE/FALSE, AND, OR, NOT, and LIKE with a literal prefix. Floating-point
 * columns are never compared in Lance (it orders NaN above every number, Flink's comparisons are
 * false for NaN), nor are dictionary-encoded, binary, time and nested columns; IS NULL is never
 * pushed for ROW columns.
 *
 * <p>A filter is written so that Lance's parser and planner can take it ({@link LanceSqlText}):
 * nested ANDs and ORs become one chain, written flat up to {@value #FLAT_CHAIN} operands and as
 * parenthesised groups beyond; equalities of one column in an OR become one IN list. What still
 * nests too deep stays in Flink.
 */
@Internal
public final class LanceFilters {
  private static final Map<FunctionDefinition, String> COMPARISONS =
      Map.of(
          BuiltInFunctionDefinitions.EQUALS, "=",
          BuiltInFunctionDefinitions.NOT_EQUALS, "<>",
          BuiltInFunctionDefinitions.GREATER_THAN, ">",
          BuiltInFunctionDefinitions.GREATER_THAN_OR_EQUAL, ">=",
          BuiltInFunctionDefinitions.LESS_THAN, "<",
          BuiltInFunctionDefinitions.LESS_THAN_OR_EQUAL, "<=");

  /** The operator with its operands swapped: {@code 3 < x} is {@code x > 3}. */
  private static final Map<String, String> MIRRORED =
      Map.of("=", "=", "<>", "<>", ">", "<", ">=", "<=", "<", ">", "<=", ">=");

  private static final Map<FunctionDefinition, String> POSTFIX =
      Map.of(
          BuiltInFunctionDefinitions.IS_NULL, "IS NULL",
          BuiltInFunctionDefinitions.IS_NOT_NULL, "IS NOT NULL");

  private static final Map<FunctionDefinition, String> BOOLEAN_POSTFIX =
      Map.of(
          BuiltInFunctionDefinitions.IS_TRUE, "IS TRUE",
          BuiltInFunctionDefinitions.IS_FALSE, "IS FALSE",
          BuiltInFunctionDefinitions.IS_NOT_TRUE, "IS NOT TRUE",
          BuiltInFunctionDefinitions.IS_NOT_FALSE, "IS NOT FALSE");

  /** Operands of an AND or OR chain written side by side; longer chains are grouped. */
  private static final int FLAT_CHAIN = 8;

  private final LanceReadSchema schema;

  public LanceFilters(LanceReadSchema schema) {
    this.schema = schema;
  }

  /**
   * The Lance filter equivalent to {@code expression}, or empty if Flink must evaluate it (Lance
   * would differ, cannot say it, or cannot take it that deep).
   */
  public Optional<String> translate(ResolvedExpression expression) {
    return part(expression).map(Part::sql).filter(LanceSqlText::fitsWritten);
  }

  private Optional<Part> part(ResolvedExpression expression) {
    if (expression instanceof FieldReferenceExpression field) {
      return comparableColumn(field)
          .filter(c -> c.type() instanceof ArrowType.Bool)
          .map(c -> Part.leaf(c.quoted()));
    }
    if (!(expression instanceof CallExpression call)) {
      return Optional.empty();
    }
    FunctionDefinition function = call.getFunctionDefinition();
    if (function == BuiltInFunctionDefinitions.AND) {
      return conjunction(operands(function, call));
    }
    if (function == BuiltInFunctionDefinitions.OR) {
      return disjunction(operands(function, call));
    }
    if (function == BuiltInFunctionDefinitions.NOT) {
      // grouped as an operand: NOT costs sqlparser a level of its own
      return part(call.getResolvedChildren().get(0))
          .map(inner -> new Part("NOT (" + inner.sql() + ")", true));
    }
    return leaf(call).map(Part::leaf);
  }

  private Optional<String> leaf(CallExpression call) {
    FunctionDefinition function = call.getFunctionDefinition();
    List<ResolvedExpression> args = call.getResolvedChildren();
    if (COMPARISONS.containsKey(function)) {
      return comparison(COMPARISONS.get(function), args.get(0), args.get(1));
    }
    if (POSTFIX.containsKey(function)) {
      // Struct validity is not null-checked the same way in every Lance file format version.
      return column(args.get(0))
          .filter(c -> !(c.type() instanceof ArrowType.Struct))
          .map(c -> c.quoted() + " " + POSTFIX.get(function));
    }
    if (BOOLEAN_POSTFIX.containsKey(function)) {
      return comparableColumn(args.get(0))
          .filter(c -> c.type() instanceof ArrowType.Bool)
          .map(c -> c.quoted() + " " + BOOLEAN_POSTFIX.get(function));
    }
    if (function == BuiltInFunctionDefinitions.IN) {
      return in(args);
    }
    if (function == BuiltInFunctionDefinitions.LIKE && args.size() == 2) {
      return likePrefix(args.get(0), args.get(1));
    }
    return Optional.empty();
  }

  /** The operands of nested calls of {@code function} (AND or OR), as one list. */
  private static List<ResolvedExpression> operands(
      FunctionDefinition function, ResolvedExpression expression) {
    List<ResolvedExpression> operands = new ArrayList<>();
    Deque<ResolvedExpression> pending = new ArrayDeque<>(List.of(expression));
    while (!pending.isEmpty()) {
      ResolvedExpression next = pending.pop();
      if (next instanceof CallExpression call && call.getFunctionDefinition() == function) {
        List<ResolvedExpression> children = call.getResolvedChildren();
        for (int i = children.size() - 1; i >= 0; i--) {
          pending.push(children.get(i));
        }
      } else {
        operands.add(next);
      }
    }
    return operands;
  }

  private Optional<Part> conjunction(List<ResolvedExpression> operands) {
    List<Part> parts = new ArrayList<>(operands.size());
    for (ResolvedExpression operand : operands) {
      Optional<Part> part = part(operand);
      if (part.isEmpty()) {
        return Optional.empty();
      }
      parts.add(part.get());
    }
    return Optional.of(chain(parts, " AND "));
  }

  /**
   * The disjunction, with the equalities and IN lists of each column merged into one IN list at the
   * place of the first: an OR of 200 equalities is one flat list for Lance.
   */
  private Optional<Part> disjunction(List<ResolvedExpression> operands) {
    List<Object> slots = new ArrayList<>(); // a Part, or the column whose IN list goes there
    Map<String, List<ResolvedExpression>> inLists = new LinkedHashMap<>();
    for (ResolvedExpression operand : operands) {
      Optional<List<ResolvedExpression>> in = inOperands(operand);
      if (in.isPresent()) {
        String column = ((FieldReferenceExpression) in.get().get(0)).getName();
        List<ResolvedExpression> list = inLists.get(column);
        if (list == null) {
          inLists.put(column, new ArrayList<>(in.get()));
          slots.add(column);
        } else {
          list.addAll(in.get().subList(1, in.get().size()));
        }
      } else {
        Optional<Part> part = part(operand);
        if (part.isEmpty()) {
          return Optional.empty();
        }
        slots.add(part.get());
      }
    }
    List<Part> parts = new ArrayList<>(slots.size());
    for (Object slot : slots) {
      if (slot instanceof Part part) {
        parts.add(part);
      } else {
        Optional<String> in = in(inLists.get((String) slot));
        if (in.isEmpty()) {
          return Optional.empty();
        }
        parts.add(Part.leaf(in.get()));
      }
    }
    return Optional.of(chain(parts, " OR "));
  }

  /**
   * {@code [column, literal...]} of {@code column = literal} (either side) or an IN of literals.
   */
  private static Optional<List<ResolvedExpression>> inOperands(ResolvedExpression expression) {
    if (!(expression instanceof CallExpression call)) {
      return Optional.empty();
    }
    List<ResolvedExpression> args = call.getResolvedChildren();
    if (call.getFunctionDefinition() == BuiltInFunctionDefinitions.EQUALS) {
      if (args.get(1) instanceof FieldReferenceExpression
          && args.get(0) instanceof ValueLiteralExpression) {
        return Optional.of(List.of(args.get(1), args.get(0)));
      }
    } else if (call.getFunctionDefinition() != BuiltInFunctionDefinitions.IN) {
      return Optional.empty();
    }
    boolean literals =
        args.get(0) instanceof FieldReferenceExpression
            && args.subList(1, args.size()).stream()
                .allMatch(arg -> arg instanceof ValueLiteralExpression);
    return literals ? Optional.of(args) : Optional.empty();
  }

  /**
   * The operands joined by {@code operator}: side by side up to {@link #FLAT_CHAIN}, else in at
   * most that many parenthesised groups (recursively), so that neither Lance's parser nor its
   * planner recurses once per operand.
   */
  private static Part chain(List<Part> parts, String operator) {
    if (parts.size() == 1) {
      return parts.get(0);
    }
    if (parts.size() > FLAT_CHAIN) {
      int size = (parts.size() + FLAT_CHAIN - 1) / FLAT_CHAIN;
      List<Part> groups = new ArrayList<>();
      for (int start = 0; start < parts.size(); start += size) {
        groups.add(chain(parts.subList(start, Math.min(parts.size(), start + size)), operator));
      }
      return chain(groups, operator);
    }
    return new Part(parts.stream().map(Part::operand).collect(Collectors.joining(operator)), true);
  }

  /**
   * @param grouped whether it stands in parentheses as an operand of AND or OR: a chain, or a NOT
   *     (which keeps sqlparser at two levels per parenthesis, see {@link LanceSqlText#fitsWritten})
   */
  private record Part(String sql, boolean grouped) {
    static Part leaf(String sql) {
      return new Part(sql, false);
    }

    String operand() {
      return grouped ? "(" + sql + ")" : sql;
    }
  }

  private Optional<String> comparison(
      String operator, ResolvedExpression left, ResolvedExpression right) {
    if (right instanceof ValueLiteralExpression literal) {
      return comparableColumn(left)
          .flatMap(
              c ->
                  LanceLiterals.format(literal, c.type())
                      .map(v -> c.quoted() + " " + operator + " " + v));
    }
    if (left instanceof ValueLiteralExpression) {
      return comparison(MIRRORED.get(operator), right, left);
    }
    return Optional.empty();
  }

  /** {@code column IN (literals)}, or {@code column = literal} for one. */
  private Optional<String> in(List<ResolvedExpression> args) {
    Optional<Column> column = comparableColumn(args.get(0));
    if (column.isEmpty()) {
      return Optional.empty();
    }
    List<String> values = new ArrayList<>();
    for (ResolvedExpression arg : args.subList(1, args.size())) {
      if (!(arg instanceof ValueLiteralExpression literal)) {
        return Optional.empty();
      }
      Optional<String> value = LanceLiterals.format(literal, column.get().type());
      if (value.isEmpty()) {
        return Optional.empty();
      }
      values.add(value.get());
    }
    return Optional.of(
        values.size() == 1
            ? column.get().quoted() + " = " + values.get(0)
            : column.get().quoted() + " IN (" + String.join(", ", values) + ")");
  }

  /**
   * {@code x LIKE 'abc%'} only: Lance treats a backslash in any pattern as an escape, so only a
   * plain prefix is certain to mean the same to both engines (and Lance can serve it from an
   * index).
   */
  private Optional<String> likePrefix(ResolvedExpression value, ResolvedExpression pattern) {
    if (!(pattern instanceof ValueLiteralExpression literal)) {
      return Optional.empty();
    }
    Optional<String> text = literal.getValueAs(String.class);
    if (text.isEmpty()) {
      return Optional.empty();
    }
    String prefix = text.get().substring(0, Math.max(0, text.get().length() - 1));
    boolean isPrefixPattern =
        text.get().endsWith("%")
            && !prefix.isEmpty()
            && prefix.chars().noneMatch(ch -> ch == '%' || ch == '_' || ch == '\\');
    if (!isPrefixPattern) {
      return Optional.empty();
    }
    return comparableColumn(value)
        .filter(c -> c.type() instanceof ArrowType.Utf8 || c.type() instanceof ArrowType.LargeUtf8)
        .map(c -> c.quoted() + " LIKE " + LanceSqlText.quote(prefix + "%"));
  }

  /** A top-level column Lance can name (its name quoted in backticks). */
  private Optional<Column> column(ResolvedExpression expression) {
    if (!(expression instanceof FieldReferenceExpression reference)) {
      return Optional.empty();
    }
    String name = reference.getName();
    // JNI would mangle NUL and surrogates (LanceSqlText); a literal can be rewritten, a name not
    if (name.chars().anyMatch(ch -> ch == '`' || ch == 0 || Character.isSurrogate((char) ch))) {
      return Optional.empty();
    }
    return schema.field(name).map(field -> new Column(name, field, schema.valueType(field)));
  }

  /** A column whose values Lance compares as Flink does. */
  private Optional<Column> comparableColumn(ResolvedExpression expression) {
    return column(expression)
        .filter(c -> c.field().getDictionary() == null && LanceLiterals.comparable(c.type()));
  }

  private record Column(String name, Field field, ArrowType type) {
    String quoted() {
      return "`" + name + "`";
    }
  }

  /** The conjunction of several translated filters, written as Lance takes it. */
  public static String and(List<String> filters) {
    return chain(filters.stream().map(f -> new Part(f, true)).toList(), " AND ").sql();
  }

  /** Whether Lance takes a filter written by {@link #translate} or {@link #and}. */
  public static boolean fits(String filter) {
    return LanceSqlText.fitsWritten(filter);
  }
}
