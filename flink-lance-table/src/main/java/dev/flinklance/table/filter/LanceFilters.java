package dev.flinklance.table.filter;

import dev.flinklance.arrow.read.LanceReadSchema;
import java.util.ArrayList;
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
 * docs/sql.md#filter-pushdown}): comparisons of a column with a literal its type holds exactly, IN,
 * IS [NOT] NULL, IS [NOT] TRUE/FALSE, AND, OR, NOT, and LIKE with a literal prefix. Floating-point
 * columns are never compared in Lance (it orders NaN above every number, Flink's comparisons are
 * false for NaN), nor are dictionary-encoded, binary, time and nested columns; IS NULL is never
 * pushed for ROW columns.
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

  private final LanceReadSchema schema;

  public LanceFilters(LanceReadSchema schema) {
    this.schema = schema;
  }

  /** The Lance filter equivalent to {@code expression}, or empty if Flink must evaluate it. */
  public Optional<String> translate(ResolvedExpression expression) {
    if (expression instanceof FieldReferenceExpression field) {
      return comparableColumn(field)
          .filter(c -> c.type() instanceof ArrowType.Bool)
          .map(Column::quoted);
    }
    if (!(expression instanceof CallExpression call)) {
      return Optional.empty();
    }
    FunctionDefinition function = call.getFunctionDefinition();
    List<ResolvedExpression> args = call.getResolvedChildren();
    if (function == BuiltInFunctionDefinitions.AND) {
      return all(args, " AND ");
    }
    if (function == BuiltInFunctionDefinitions.OR) {
      return all(args, " OR ");
    }
    if (function == BuiltInFunctionDefinitions.NOT) {
      return translate(args.get(0)).map(inner -> "NOT (" + inner + ")");
    }
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

  private Optional<String> all(List<ResolvedExpression> args, String operator) {
    List<String> parts = new ArrayList<>(args.size());
    for (ResolvedExpression arg : args) {
      Optional<String> part = translate(arg);
      if (part.isEmpty()) {
        return Optional.empty();
      }
      parts.add("(" + part.get() + ")");
    }
    return Optional.of(String.join(operator, parts));
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
    return Optional.of(column.get().quoted() + " IN (" + String.join(", ", values) + ")");
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
        .map(c -> c.quoted() + " LIKE " + LanceLiterals.quote(prefix + "%"));
  }

  /** A top-level column Lance can name (its name quoted in backticks). */
  private Optional<Column> column(ResolvedExpression expression) {
    if (!(expression instanceof FieldReferenceExpression reference)) {
      return Optional.empty();
    }
    String name = reference.getName();
    if (name.indexOf('`') >= 0) {
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

  /** The conjunction of several translated filters. */
  public static String and(List<String> filters) {
    return filters.size() == 1
        ? filters.get(0)
        : filters.stream().map(f -> "(" + f + ")").collect(Collectors.joining(" AND "));
  }
}
