package dev.flinklance.table.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.arrow.read.LanceReadSchema;
import dev.flinklance.filter.LanceSqlText;
import dev.flinklance.testing.TestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.function.IntFunction;
import java.util.stream.IntStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.expressions.CallExpression;
import org.apache.flink.table.expressions.FieldReferenceExpression;
import org.apache.flink.table.expressions.ResolvedExpression;
import org.apache.flink.table.expressions.ValueLiteralExpression;
import org.apache.flink.table.functions.BuiltInFunctionDefinition;
import org.apache.flink.table.functions.BuiltInFunctionDefinitions;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/**
 * What Lance (lance-core 7.0.0, a real table) takes: the parser's measured limit, and filters that
 * {@link LanceFilters} writes for trees of every depth and width, counted by Lance and by
 * evaluating the tree here. Never a filter that could overflow the native stack (that would kill
 * this JVM).
 */
class LanceFiltersTest {
  private static final int ROWS = 300;
  private static final String[] NAMES = {"a", "smile 😀", "😀", "x😀y", "a\u0000b", "it's"};
  private static final RowType ROW_TYPE =
      (RowType)
          DataTypes.ROW(
                  DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
                  DataTypes.FIELD("s", DataTypes.STRING().notNull()))
              .notNull()
              .getLogicalType();
  private static final FieldReferenceExpression ID =
      new FieldReferenceExpression("id", DataTypes.BIGINT().notNull(), 0, 0);
  private static final FieldReferenceExpression S =
      new FieldReferenceExpression("s", DataTypes.STRING().notNull(), 0, 1);

  @TempDir static Path dir;
  private static BufferAllocator allocator;
  private static Dataset dataset;
  private static LanceFilters filters;

  @BeforeAll
  static void writeTable() throws Exception {
    String uri = dir.resolve("t").toString();
    List<RowData> rows = new ArrayList<>();
    for (int n = 0; n < ROWS; n++) {
      rows.add(GenericRowData.of((long) n, StringData.fromString(name(n))));
    }
    TestTables.write(uri, ROW_TYPE, rows, 100);
    allocator = new RootAllocator();
    dataset = Dataset.open(uri, allocator);
    filters = new LanceFilters(LanceReadSchema.of(dataset));
  }

  @AfterAll
  static void close() {
    dataset.close();
    allocator.close();
  }

  private static String name(long id) {
    return NAMES[(int) (id % NAMES.length)];
  }

  /** Lance's count of the rows passing {@code filter}; Lance's own error if it refuses it. */
  private static long count(String filter) {
    return dataset.countRows(filter);
  }

  /** Lance's error for {@code filter} at planning (no rows read), or empty if it takes it. */
  private static Optional<String> refusal(String filter) {
    try (LanceScanner scanner =
        dataset.newScan(new ScanOptions.Builder().columns(List.of("id")).filter(filter).build())) {
      scanner.schema();
      return Optional.empty();
    } catch (Exception e) {
      return Optional.of(String.valueOf(e.getMessage()));
    }
  }

  @Test
  void lanceParserGivesUpAtFiftyLevels() {
    assertThat(refusal("(".repeat(46) + "id = 1" + ")".repeat(46))).isEmpty();
    assertThat(refusal("(".repeat(47) + "id = 1" + ")".repeat(47)))
        .hasValueSatisfying(m -> assertThat(m).contains("Error parsing statement"));
    // on the right of an operator a group costs two levels
    assertThat(refusal(rightNested(23))).isEmpty();
    assertThat(refusal(rightNested(24)))
        .hasValueSatisfying(m -> assertThat(m).contains("Error parsing statement"));
  }

  /** {@code id = 0 OR (id = 1 AND (id = 2 OR (...)))}, {@code levels} groups deep. */
  private static String rightNested(int levels) {
    String tree = "id = " + levels;
    for (int k = levels - 1; k >= 0; k--) {
      tree = "id = " + k + (k % 2 == 0 ? " OR (" : " AND (") + tree + ")";
    }
    return tree;
  }

  @Test
  void literalsOutsideTheBasicPlaneReachLance() {
    for (String name : NAMES) {
      String filter =
          filters
              .translate(call(BuiltInFunctionDefinitions.EQUALS, S, literal(name)))
              .orElseThrow();
      assertThat(count(filter)).as(filter).isEqualTo(ROWS / NAMES.length);
    }
    assertThat(filters.translate(call(BuiltInFunctionDefinitions.EQUALS, S, literal("x\uD83D"))))
        .as("an unpaired surrogate")
        .isEmpty();
  }

  @Test
  void deepTreesArePushedWhileLanceTakesThem() {
    int deepest = 0;
    for (int depth = 1; depth <= 60; depth++) {
      ResolvedExpression tree = alternating(depth, new Random(depth));
      Optional<String> filter = filters.translate(tree);
      if (filter.isPresent()) {
        assertThat(refusal(filter.get())).as("depth %d: %s", depth, filter.get()).isEmpty();
        assertThat(count(filter.get())).as("depth %d", depth).isEqualTo(expectedCount(tree));
        deepest = depth;
      }
    }
    // 23 levels is the parser's limit for such trees (lanceParserGivesUpAtFiftyLevels)
    assertThat(deepest).isBetween(20, 22);
  }

  /** Trees of every shape: NOT at any level, subtrees on either side, chains of any length. */
  @Test
  void everyPushedTreeIsTakenByLance() {
    for (long seed = 0; seed < 200; seed++) {
      Random random = new Random(seed);
      ResolvedExpression tree = randomTree(1 + random.nextInt(40), random);
      Optional<String> filter = filters.translate(tree);
      if (filter.isPresent()) {
        assertThat(refusal(filter.get())).as("seed %d: %s", seed, filter.get()).isEmpty();
        assertThat(count(filter.get())).as("seed %d", seed).isEqualTo(expectedCount(tree));
      }
    }
  }

  private static ResolvedExpression randomTree(int depth, Random random) {
    if (depth == 0) {
      return comparison(random);
    }
    ResolvedExpression inner = randomTree(depth - 1, random);
    if (random.nextInt(4) == 0) {
      return call(BuiltInFunctionDefinitions.NOT, inner);
    }
    List<ResolvedExpression> operands = new ArrayList<>();
    IntStream.range(0, random.nextInt(12)).forEach(k -> operands.add(comparison(random)));
    operands.add(random.nextInt(operands.size() + 1), inner);
    if (operands.size() == 1) {
      operands.add(comparison(random));
    }
    return call(
        random.nextBoolean() ? BuiltInFunctionDefinitions.AND : BuiltInFunctionDefinitions.OR,
        operands.toArray(ResolvedExpression[]::new));
  }

  @Test
  void longChainsAreWrittenFlatOrGrouped() {
    ResolvedExpression equalities =
        or(1_000, k -> call(BuiltInFunctionDefinitions.EQUALS, ID, literal((long) k * 3)));
    String in = filters.translate(equalities).orElseThrow();
    assertThat(in).doesNotContain(" OR ").startsWith("`id` IN (0, 3, 6,");
    assertThat(count(in)).isEqualTo(100);

    ResolvedExpression conjunctions =
        call(
            BuiltInFunctionDefinitions.OR,
            IntStream.range(0, 2_000)
                .mapToObj(
                    k ->
                        call(
                            BuiltInFunctionDefinitions.AND,
                            call(BuiltInFunctionDefinitions.GREATER_THAN, ID, literal((long) k)),
                            call(BuiltInFunctionDefinitions.NOT_EQUALS, S, literal(name(k)))))
                .toArray(ResolvedExpression[]::new));
    String grouped = filters.translate(conjunctions).orElseThrow();
    assertThat(LanceSqlText.shape(grouped).operatorDepth())
        .isLessThanOrEqualTo(LanceSqlText.MAX_OPERATOR_DEPTH);
    assertThat(count(grouped)).isEqualTo(expectedCount(conjunctions));

    List<String> conjuncts =
        IntStream.range(0, 1_000).mapToObj(k -> "`id` <> " + k % ROWS).toList();
    assertThat(count(LanceFilters.and(conjuncts))).isZero();
  }

  @Test
  void userFiltersAreMadeSafeForLance() {
    String safe = LanceSqlText.forLance("s = 'smile 😀' OR s IN ('😀', 'it''s', 'a\u0000b')");
    assertThat(safe).doesNotContain("😀").contains("chr(128512)");
    assertThat(count(safe)).isEqualTo(4 * ROWS / NAMES.length);
    assertThat(LanceSqlText.forLance("s = 'plain'")).isEqualTo("s = 'plain'");

    assertThatThrownBy(() -> LanceSqlText.forLance("`😀` = 1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not in a string literal");
    String chain = String.join(" OR ", IntStream.range(0, 400).mapToObj(k -> "id = " + k).toList());
    assertThatThrownBy(() -> LanceSqlText.forLance(chain))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("IN lists");
  }

  /** Levels alternating OR and AND, each level's other operand a random comparison. */
  private static ResolvedExpression alternating(int depth, Random random) {
    ResolvedExpression tree = comparison(random);
    for (int level = depth - 1; level >= 0; level--) {
      tree =
          call(
              level % 2 == 0 ? BuiltInFunctionDefinitions.OR : BuiltInFunctionDefinitions.AND,
              comparison(random),
              tree);
    }
    return tree;
  }

  private static ResolvedExpression comparison(Random random) {
    return switch (random.nextInt(4)) {
      case 0 ->
          call(BuiltInFunctionDefinitions.GREATER_THAN, ID, literal((long) random.nextInt(ROWS)));
      case 1 ->
          call(BuiltInFunctionDefinitions.NOT_EQUALS, ID, literal((long) random.nextInt(ROWS)));
      case 2 ->
          call(BuiltInFunctionDefinitions.EQUALS, S, literal(NAMES[random.nextInt(NAMES.length)]));
      default ->
          call(
              BuiltInFunctionDefinitions.NOT,
              call(BuiltInFunctionDefinitions.LESS_THAN, ID, literal((long) random.nextInt(ROWS))));
    };
  }

  private static ResolvedExpression or(int count, IntFunction<ResolvedExpression> operand) {
    ResolvedExpression tree = operand.apply(0);
    for (int k = 1; k < count; k++) {
      tree = call(BuiltInFunctionDefinitions.OR, tree, operand.apply(k));
    }
    return tree;
  }

  private static long expectedCount(ResolvedExpression tree) {
    return IntStream.range(0, ROWS).filter(n -> evaluate(tree, n)).count();
  }

  /** The tree on row {@code n} (no NULLs in the table, so two-valued logic). */
  private static boolean evaluate(ResolvedExpression expression, long n) {
    CallExpression call = (CallExpression) expression;
    List<ResolvedExpression> args = call.getResolvedChildren();
    BuiltInFunctionDefinition function = (BuiltInFunctionDefinition) call.getFunctionDefinition();
    if (function == BuiltInFunctionDefinitions.AND) {
      return args.stream().allMatch(arg -> evaluate(arg, n));
    }
    if (function == BuiltInFunctionDefinitions.OR) {
      return args.stream().anyMatch(arg -> evaluate(arg, n));
    }
    if (function == BuiltInFunctionDefinitions.NOT) {
      return !evaluate(args.get(0), n);
    }
    ValueLiteralExpression literal = (ValueLiteralExpression) args.get(1);
    if (args.get(0) == S) {
      boolean equal = name(n).equals(literal.getValueAs(String.class).orElseThrow());
      return function == BuiltInFunctionDefinitions.EQUALS ? equal : !equal;
    }
    int compared = Long.compare(n, literal.getValueAs(Long.class).orElseThrow());
    if (function == BuiltInFunctionDefinitions.EQUALS) {
      return compared == 0;
    }
    if (function == BuiltInFunctionDefinitions.NOT_EQUALS) {
      return compared != 0;
    }
    return function == BuiltInFunctionDefinitions.GREATER_THAN ? compared > 0 : compared < 0;
  }

  private static ValueLiteralExpression literal(Object value) {
    return new ValueLiteralExpression(value);
  }

  private static CallExpression call(
      BuiltInFunctionDefinition function, ResolvedExpression... args) {
    return CallExpression.permanent(function, List.of(args), DataTypes.BOOLEAN());
  }
}
