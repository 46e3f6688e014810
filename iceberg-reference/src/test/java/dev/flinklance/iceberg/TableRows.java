package dev.flinklance.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** How both sinks' tables are compared: rows by id as [id, v, note], and their bytes on disk. */
final class TableRows {
  private final String table;
  private final Map<Long, List<Object>> byId = new HashMap<>();

  TableRows(String table) {
    this.table = table;
  }

  /** A row as the tables are compared, the note as a Java string or null. */
  static List<Object> values(Object id, Object v, Object note) {
    List<Object> values = new ArrayList<>(3);
    values.add(id);
    values.add(v);
    values.add(note == null ? null : note.toString());
    return values;
  }

  /** Adds a row read from the table; an id read twice fails (a key's row must be there once). */
  void add(Object id, Object v, Object note) {
    if (byId.put((Long) id, values(id, v, note)) != null) {
      throw new AssertionError("id " + id + " twice in table " + table);
    }
  }

  Map<Long, List<Object>> byId() {
    return byId;
  }

  /** Bytes of every file under {@code dir}. */
  static long bytesUnder(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).mapToLong(TableRows::size).sum();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Files under {@code dir} whose name ends with {@code suffix}. */
  static long filesUnder(Path dir, String suffix) {
    try (Stream<Path> files = Files.walk(dir)) {
      return files
          .filter(f -> Files.isRegularFile(f) && f.getFileName().toString().endsWith(suffix))
          .count();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static long size(Path file) {
    try {
      return Files.size(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
