package dev.flinklance.arrow.write;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.codehaus.janino.SimpleCompiler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Generates the {@link RowConversion} of one schema: straight-line code that reads each column's
 * value from the row and stores it at the vector's address, the way code written for that schema
 * would. The loop over the column writers took twice the CPU per narrow row (41-55 ns against 22-25
 * on {@code bin/bench}'s rows): a call, a switch on the type and a second dispatch on the row's
 * class per value. Common scalar and string columns are inlined; every other column, and every
 * null, goes through its {@link FieldWriter} as before, so both ways write the same bytes.
 *
 * <p>The code is compiled by Janino, which Flink ships with its table runtime (in {@code lib/} of
 * every distribution), and defined as a class of this package and class loader, so that it reaches
 * the package's writers. Classes are kept per generated source (as long as the class loader lives):
 * a writer opened again, or another subtask of the same sink, does not compile again. Without
 * Janino on the class path the interpreted conversion is used.
 */
final class ConversionCompiler {
  private static final Logger LOG = LoggerFactory.getLogger(ConversionCompiler.class);
  private static final String PACKAGE = ConversionCompiler.class.getPackageName();
  private static final Map<String, MethodHandle> COMPILED = new ConcurrentHashMap<>();
  private static final AtomicInteger CLASSES = new AtomicInteger();
  private static final boolean JANINO = janinoAvailable();

  private ConversionCompiler() {}

  /**
   * The generated conversion for these column writers, or the interpreted one if Janino is not
   * there.
   *
   * @param positions for each writer, the position of its field in the stream's rows
   */
  static RowConversion create(FieldWriter<?>[] writers, int[] positions) {
    if (!JANINO) {
      return new InterpretedConversion(writers, positions);
    }
    MethodHandle constructor =
        COMPILED.computeIfAbsent(source(writers, positions), ConversionCompiler::compile);
    try {
      return (RowConversion) constructor.invoke(writers);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable e) {
      throw new IllegalStateException("Cannot instantiate the generated row conversion", e);
    }
  }

  private static boolean janinoAvailable() {
    try {
      Class.forName(
          "org.codehaus.janino.SimpleCompiler", false, ConversionCompiler.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      LOG.info(
          "Janino (in Flink's flink-table-runtime) is not on the class path: rows are converted"
              + " to Arrow by the column writers, at about twice the CPU per narrow row");
      return false;
    }
  }

  /**
   * Compiles {@code template} (the source with the class name left as {@link #CLASS_NAME_SLOT})
   * into a class of this package and class loader under a name of its own (a hidden class cannot be
   * used: Janino's class files name their own class again where only the defining reference
   * resolves).
   */
  private static MethodHandle compile(String template) {
    String simpleName = "GeneratedConversion" + CLASSES.incrementAndGet();
    String source = template.replace(CLASS_NAME_SLOT, simpleName);
    SimpleCompiler compiler = new SimpleCompiler();
    compiler.setParentClassLoader(ConversionCompiler.class.getClassLoader());
    try {
      compiler.cook(source);
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      Class<?> compiled =
          lookup.defineClass(compiler.getBytecodes().get(PACKAGE + "." + simpleName));
      return lookup
          .findConstructor(compiled, MethodType.methodType(void.class, FieldWriter[].class))
          .asType(MethodType.methodType(RowConversion.class, FieldWriter[].class));
    } catch (Exception e) {
      // generated from our own templates: a failure here is a bug, never the user's data
      throw new IllegalStateException("Cannot compile the row conversion:\n" + source, e);
    }
  }

  private static final String CLASS_NAME_SLOT = "GENERATED_CLASS";
  static final int COLUMNS_PER_METHOD = 32;

  /**
   * Java source of the conversion, its class name {@link #CLASS_NAME_SLOT}; the same columns give
   * the same source. The columns are written by methods of {@link #COLUMNS_PER_METHOD} each: the
   * JIT does not compile a method of more than 8,000 bytes of bytecode at all, which a wide table
   * in one method would reach.
   */
  static String source(FieldWriter<?>[] writers, int[] positions) {
    StringBuilder members = new StringBuilder();
    StringBuilder init = new StringBuilder();
    StringBuilder forget = new StringBuilder();
    StringBuilder methods = new StringBuilder();
    StringBuilder calls = new StringBuilder();
    StringBuilder body = new StringBuilder();
    boolean delegates = false;
    for (int i = 0; i < writers.length; i++) {
      int pos = positions[i];
      if (pos == FieldWriters.ABSENT) {
        body.append(format("    w[%d].writeNull(index);%n", i));
        endMethod(i, writers.length, body, methods, calls);
        continue;
      }
      LeafWriter.Kind kind =
          writers[i] instanceof LeafWriter<?> leaf ? leaf.kind() : LeafWriter.Kind.SETTER;
      String store = store(kind, i, pos, writers[i]);
      if (store == null && kind != LeafWriter.Kind.STRING) {
        delegates = true;
        body.append(format("    w[%1$d].write(reader, %2$d, index);%n", i, pos));
      } else {
        members.append(format("  private final LeafWriter l%1$d;%n  private int r%1$d;%n", i));
        init.append(format("    l%1$d = (LeafWriter) w[%1$d];%n", i));
        forget.append(format("    r%1$d = 0;%n", i));
        body.append(
            format("    if (row.isNullAt(%2$d)) {%n      l%1$d.writeNull(index);%n", i, pos));
        if (kind == LeafWriter.Kind.STRING) {
          members.append(format("  private final VarCharVector v%1$d;%n", i));
          init.append(format("    v%1$d = (VarCharVector) w[%1$d].vector;%n", i));
          body.append(
              format(
                  "    } else {%n      if (index >= r%1$d) {%n        l%1$d.makeRoom(index);%n"
                      + "        r%1$d = v%1$d.getValueCapacity();%n      }%n"
                      + "      StringCopier.set(v%1$d, index, row.getString(%2$d));%n    }%n",
                  i, pos));
        } else {
          members.append(
              format(
                  "  private final BaseFixedWidthVector v%1$d;%n  private long d%1$d;%n"
                      + "  private long n%1$d;%n"
                      + "  private void grow%1$d(int index) {%n    l%1$d.makeRoom(index);%n"
                      + "    r%1$d = v%1$d.getValueCapacity();%n"
                      + "    d%1$d = v%1$d.getDataBuffer().memoryAddress();%n"
                      + "    n%1$d = v%1$d.getValidityBuffer().memoryAddress();%n  }%n",
                  i));
          init.append(format("    v%1$d = (BaseFixedWidthVector) w[%1$d].vector;%n", i));
          body.append(
              format(
                  "    } else {%n      if (index >= r%1$d) {%n        grow%1$d(index);%n      }%n"
                      + "      %2$s;%n      LeafWriter.setValid(n%1$d, index);%n    }%n",
                  i, store));
        }
      }
      endMethod(i, writers.length, body, methods, calls);
    }
    return "package "
        + PACKAGE
        + ";\n"
        + "import org.apache.arrow.memory.util.MemoryUtil;\n"
        + "import org.apache.arrow.vector.BaseFixedWidthVector;\n"
        + "import org.apache.arrow.vector.VarCharVector;\n"
        + "import org.apache.flink.table.data.RowData;\n"
        + "public final class "
        + CLASS_NAME_SLOT
        + " implements RowConversion {\n"
        + "  private final FieldWriter[] w;\n"
        + "  private final ValueReader reader = new ValueReader();\n"
        + members
        + "  public "
        + CLASS_NAME_SLOT
        + "(FieldWriter[] w) {\n"
        + "    this.w = w;\n"
        + init
        + "  }\n"
        + "  public void write(RowData row, int index) {\n"
        + (delegates ? "    reader.pointTo(row);\n" : "")
        + calls
        + "  }\n"
        + "  public void forgetRoom() {\n"
        + forget
        + "    for (int i = 0; i < w.length; i++) {\n"
        + "      w[i].forgetRoom();\n"
        + "    }\n"
        + "  }\n"
        + methods
        + "}\n";
  }

  /** Closes the method of column {@code i}'s group if {@code i} is its last column. */
  private static void endMethod(
      int i, int columns, StringBuilder body, StringBuilder methods, StringBuilder calls) {
    if ((i + 1) % COLUMNS_PER_METHOD == 0 || i == columns - 1) {
      int method = i / COLUMNS_PER_METHOD;
      methods.append(
          format("  private void columns%d(RowData row, int index) {%n%s  }%n", method, body));
      calls.append(format("    columns%d(row, index);%n", method));
      body.setLength(0);
    }
  }

  private static String format(String template, Object... args) {
    return String.format(Locale.ROOT, template, args);
  }

  /**
   * The statement that stores the non-null value at {@code pos} into slot {@code index} of a
   * fixed-width column with room for it; null for a column the generated code does not inline.
   */
  private static String store(LeafWriter.Kind kind, int column, int pos, FieldWriter<?> writer) {
    switch (kind) {
      case TINYINT:
        return "MemoryUtil.putByte(" + slot(column, 1) + ", row.getByte(" + pos + "))";
      case SMALLINT:
        return "MemoryUtil.putShort(" + slot(column, 2) + ", row.getShort(" + pos + "))";
      case INT:
        return "MemoryUtil.putInt(" + slot(column, 4) + ", row.getInt(" + pos + "))";
      case BIGINT:
        return "MemoryUtil.putLong(" + slot(column, 8) + ", row.getLong(" + pos + "))";
      case FLOAT:
        return "MemoryUtil.putInt("
            + slot(column, 4)
            + ", Float.floatToRawIntBits(row.getFloat("
            + pos
            + ")))";
      case DOUBLE:
        return "MemoryUtil.putLong("
            + slot(column, 8)
            + ", Double.doubleToRawLongBits(row.getDouble("
            + pos
            + ")))";
      case TIMESTAMP_MILLIS:
        return "MemoryUtil.putLong("
            + slot(column, 8)
            + ", row.getTimestamp("
            + pos
            + ", "
            + ((LeafWriter<?>) writer).precision()
            + ").getMillisecond())";
      default:
        return null; // BOOLEAN (bits), STRING (its own path) and the setters
    }
  }

  private static String slot(int column, int width) {
    return "d" + column + " + (long) index * " + width;
  }
}
