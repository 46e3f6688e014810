package dev.flinklance.e2e.soak;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Draws a soak run's series ({@code soak.csv}, {@code soak-memory.csv}) as one SVG of stacked
 * panels over the run's minutes, the kills marked in each: what docs/benchmark.md shows. Plain SVG,
 * so that no plotting library is needed. {@link SoakRun} writes it at the end of a run; {@code
 * main} draws it again from a run's data directory.
 */
final class SoakPlot {
  private static final int WIDTH = 980;
  private static final int PANEL = 150;
  private static final int GAP = 46;
  private static final int LEFT = 70;
  private static final int RIGHT = 170;
  private static final String[] COLORS = {
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"
  };

  private record Series(String name, double[] x, double[] y) {}

  private record Panel(String title, List<Series> series) {}

  private SoakPlot() {}

  /**
   * Usage: {@code SoakPlot <data directory> [kill seconds, comma-separated]}: writes {@code
   * soak.svg} there.
   */
  public static void main(String[] args) throws IOException {
    List<Long> kills = new ArrayList<>();
    if (args.length > 1 && !args[1].isBlank()) {
      Arrays.stream(args[1].split(",")).map(String::trim).map(Long::parseLong).forEach(kills::add);
    }
    System.out.println(write(Path.of(args[0]), kills));
  }

  /**
   * @param kills the seconds into the run at which a TaskManager was killed
   * @return the SVG file written
   */
  static Path write(Path dir, List<Long> kills) throws IOException {
    Map<String, double[]> soak = columns(dir.resolve("soak.csv"));
    double[] x = minutes(soak.get("seconds"));
    List<Panel> panels = new ArrayList<>();
    panels.add(
        new Panel(
            "Rows appended / changes upserted per second",
            List.of(
                new Series("append rows/s", x, soak.get("append_rows_per_s")),
                new Series("upsert changes/s", x, soak.get("upsert_changes_per_s")))));
    panels.add(new Panel("Checkpoint duration, ms", bySuffix(soak, x, "checkpoint_ms_", "")));
    panels.add(new Panel("Commit duration, ms", bySuffix(soak, x, "commit_ms_", "")));
    panels.add(new Panel("Fragments", bySuffix(soak, x, "", "_fragments")));
    panels.add(new Panel("Versions kept", bySuffix(soak, x, "", "_versions")));
    panels.add(
        new Panel(
            "Changelog copy: versions behind the upsert table",
            List.of(new Series("copy", x, soak.get("copy_versions_behind")))));
    panels.add(
        new Panel(
            "Plain lance-core reader: mean query time, ms",
            List.of(new Series("reader", x, soak.get("read_mean_ms")))));
    Map<String, List<double[]>> memory = memory(dir.resolve("soak-memory.csv"));
    panels.add(new Panel("TaskManager RSS, MB", perTaskManager(memory, 0)));
    panels.add(new Panel("TaskManager heap used, MB", perTaskManager(memory, 1)));

    double maxMinute = 0;
    for (double minute : x) {
      maxMinute = Math.max(maxMinute, minute);
    }
    for (List<double[]> samples : memory.values()) {
      for (double[] sample : samples) {
        maxMinute = Math.max(maxMinute, sample[0]);
      }
    }
    StringBuilder svg = new StringBuilder();
    int height = panels.size() * (PANEL + GAP) + 30;
    svg.append(
        String.format(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " font-family=\"sans-serif\" font-size=\"12\">%n"
                + "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>%n",
            WIDTH, height));
    for (int i = 0; i < panels.size(); i++) {
      draw(svg, panels.get(i), 30 + i * (PANEL + GAP), Math.max(1, maxMinute), kills);
    }
    svg.append("</svg>\n");
    Path file = dir.resolve("soak.svg");
    Files.writeString(file, svg);
    return file;
  }

  private static void draw(
      StringBuilder svg, Panel panel, int top, double maxMinute, List<Long> kills) {
    int plotWidth = WIDTH - LEFT - RIGHT;
    double maxY = 0;
    for (Series series : panel.series()) {
      for (double y : series.y()) {
        if (!Double.isNaN(y)) {
          maxY = Math.max(maxY, y);
        }
      }
    }
    maxY = niceCeiling(maxY);
    svg.append(
        String.format(
            "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">%s</text>%n",
            LEFT, top - 8, escape(panel.title())));
    svg.append(
        String.format(
            "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#999\"/>%n",
            LEFT, top, plotWidth, PANEL));
    for (int tick = 0; tick <= 4; tick++) {
      double value = maxY * tick / 4;
      double y = top + PANEL - PANEL * tick / 4.0;
      svg.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>"
                  + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n",
              LEFT,
              LEFT + plotWidth,
              y,
              y,
              LEFT - 6,
              y + 4,
              label(value)));
    }
    int step = maxMinute > 30 ? 10 : maxMinute > 10 ? 5 : 1;
    for (int minute = 0; minute <= maxMinute; minute += step) {
      double x = LEFT + plotWidth * minute / maxMinute;
      svg.append(
          String.format(
              Locale.ROOT,
              "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d min</text>%n",
              x,
              top + PANEL + 15,
              minute));
    }
    for (long kill : kills) {
      double x = LEFT + plotWidth * (kill / 60.0) / maxMinute;
      svg.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#bbb\""
                  + " stroke-dasharray=\"3,3\"/>%n",
              x,
              x,
              top,
              top + PANEL));
    }
    for (int s = 0; s < panel.series().size(); s++) {
      Series series = panel.series().get(s);
      String color = COLORS[s % COLORS.length];
      StringBuilder points = new StringBuilder();
      for (int i = 0; i < series.x().length; i++) {
        double value = series.y()[i];
        if (Double.isNaN(value)) {
          flush(svg, points, color);
          continue;
        }
        points.append(
            String.format(
                Locale.ROOT,
                "%.1f,%.1f ",
                LEFT + plotWidth * series.x()[i] / maxMinute,
                top + PANEL - (maxY == 0 ? 0 : PANEL * value / maxY)));
      }
      flush(svg, points, color);
      if (panel.series().size() <= PANEL / 16) {
        svg.append(
            String.format(
                "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"3\" fill=\"%s\"/>"
                    + "<text x=\"%d\" y=\"%d\">%s</text>%n",
                LEFT + plotWidth + 12,
                top + 10 + s * 16,
                color,
                LEFT + plotWidth + 30,
                top + 15 + s * 16,
                escape(series.name())));
      }
    }
    if (panel.series().size() > PANEL / 16) { // too many to name: TaskManagers replaced by kills
      svg.append(
          String.format(
              "<text x=\"%d\" y=\"%d\">%d lines, one each</text>%n",
              LEFT + plotWidth + 12, top + 15, panel.series().size()));
    }
  }

  private static void flush(StringBuilder svg, StringBuilder points, String color) {
    if (points.length() > 0) {
      svg.append(
          String.format(
              "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.2\" points=\"%s\"/>%n",
              color, points.toString().trim()));
      points.setLength(0);
    }
  }

  /** 1, 2 or 5 times a power of ten, at least {@code value}. */
  private static double niceCeiling(double value) {
    if (value <= 0) {
      return 1;
    }
    double power = Math.pow(10, Math.floor(Math.log10(value)));
    for (double factor : new double[] {1, 2, 5, 10}) {
      if (factor * power >= value) {
        return factor * power;
      }
    }
    return 10 * power;
  }

  private static String label(double value) {
    return value == Math.rint(value)
        ? String.format(Locale.ROOT, "%,d", (long) value)
        : String.format(Locale.ROOT, "%.1f", value);
  }

  private static String escape(String text) {
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }

  private static double[] minutes(double[] seconds) {
    return Arrays.stream(seconds).map(s -> s / 60).toArray();
  }

  /** The columns named {@code prefix + <table> + suffix}, one series per table. */
  private static List<Series> bySuffix(
      Map<String, double[]> columns, double[] x, String prefix, String suffix) {
    List<Series> series = new ArrayList<>();
    columns.forEach(
        (name, values) -> {
          if (name.startsWith(prefix) && name.endsWith(suffix) && !name.equals("seconds")) {
            String table = name.substring(prefix.length(), name.length() - suffix.length());
            if (!table.isEmpty() && !table.contains("_")) {
              series.add(new Series(table, x, values));
            }
          }
        });
    return series;
  }

  /** A CSV's columns by header name; a value that is not a number ({@code -}) is NaN. */
  private static Map<String, double[]> columns(Path csv) throws IOException {
    List<String> lines = Files.readAllLines(csv);
    String[] header = lines.get(0).split(",");
    Map<String, double[]> columns = new LinkedHashMap<>();
    for (String name : header) {
      columns.put(name, new double[lines.size() - 1]);
    }
    for (int row = 1; row < lines.size(); row++) {
      String[] cells = lines.get(row).split(",", -1);
      for (int column = 0; column < header.length; column++) {
        columns.get(header[column])[row - 1] =
            column < cells.length ? number(cells[column]) : Double.NaN;
      }
    }
    return columns;
  }

  private static double number(String cell) {
    try {
      return Double.parseDouble(cell);
    } catch (NumberFormatException e) {
      return Double.NaN;
    }
  }

  /** Per TaskManager, its samples: minute, RSS MB, heap MB. */
  private static Map<String, List<double[]>> memory(Path csv) throws IOException {
    Map<String, List<double[]>> samples = new TreeMap<>();
    List<String> lines = Files.readAllLines(csv);
    for (String line : lines.subList(1, lines.size())) {
      String[] cells = line.split(",", -1); // the heap is empty until a TaskManager reports it
      samples
          .computeIfAbsent(cells[1], tm -> new ArrayList<>())
          .add(
              new double[] {Double.parseDouble(cells[0]) / 60, number(cells[2]), number(cells[3])});
    }
    return samples;
  }

  /**
   * @param value 0 for RSS, 1 for heap
   */
  private static List<Series> perTaskManager(Map<String, List<double[]>> memory, int value) {
    List<Series> series = new ArrayList<>();
    memory.forEach(
        (tm, samples) ->
            series.add(
                new Series(
                    tm,
                    samples.stream().mapToDouble(s -> s[0]).toArray(),
                    samples.stream().mapToDouble(s -> s[1 + value]).toArray())));
    return series;
  }
}
