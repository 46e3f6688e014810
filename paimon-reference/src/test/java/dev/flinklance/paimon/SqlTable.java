package dev.flinklance.paimon;

import dev.flinklance.access.TableRef;
import dev.flinklance.table.lookup.LanceScalarIndex;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.table.api.TableEnvironment;

/**
 * A primary-key table as Flink SQL sees it, one of the compared sides: a table of the 'lance'
 * connector, or a Paimon table in a Paimon catalog over a local warehouse. Each SQL session
 * declares it ({@link #declare}) and then names it as {@link #name}.
 */
abstract class SqlTable {
  /** What is printed. */
  final String label;

  /** The table's columns and key, as in CREATE TABLE. */
  final String columns;

  private SqlTable(String label, String columns) {
    this.label = label;
    this.columns = columns;
  }

  /** Makes {@link #name} resolve in {@code env}; creates the table on the first call. */
  abstract void declare(TableEnvironment env);

  /** The table in SQL, with the options of a hint ({@code 'k' = 'v', ...}) if not empty. */
  abstract String name(String hint);

  /** The directory all of the table's files are in. */
  abstract Path directory();

  /**
   * Readies the table for lookups by {@code id} as its documentation says; returns what was done.
   */
  abstract String readyForLookups();

  /** Bytes of every file of the table: data, deletions, indexes, metadata, every version. */
  long bytesOnDisk() {
    try (Stream<Path> files = Files.walk(directory())) {
      return files.filter(Files::isRegularFile).mapToLong(SqlTable::size).sum();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String hinted(String table, String hint) {
    return hint.isEmpty() ? table : table + " /*+ OPTIONS(" + hint + ") */";
  }

  private static long size(Path file) {
    try {
      return Files.size(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A table of the 'lance' connector at {@code path}, with the connector's defaults. */
  static SqlTable lance(String label, Path path, String columns) {
    return new SqlTable(label, columns) {
      @Override
      void declare(TableEnvironment env) {
        env.executeSql(
            "CREATE TEMPORARY TABLE lance_table ("
                + columns
                + ") WITH ('connector' = 'lance', 'path' = '"
                + path.toUri()
                + "')");
      }

      @Override
      String name(String hint) {
        return hinted("lance_table", hint);
      }

      @Override
      Path directory() {
        return path;
      }

      /**
       * Brings the key's BTree index up to date (docs/sql.md, lookup joins): the sink builds it
       * before its first commit, so a table written by one batch job has it over no rows.
       */
      @Override
      String readyForLookups() {
        LanceScalarIndex.Created index =
            LanceScalarIndex.create(TableRef.at(path.toString(), Map.of()), "id");
        return String.format(
            "index %s on id %s, %,d rows indexed",
            index.name(), index.action(), index.rowsIndexed());
      }
    };
  }

  /**
   * A Paimon table {@code db.t} in a warehouse of its own, with 2 buckets and {@code options}
   * beside Paimon's defaults.
   */
  static SqlTable paimon(
      String label, Path warehouse, String columns, Map<String, String> options) {
    String with =
        Stream.concat(Stream.of(Map.entry("bucket", "2")), options.entrySet().stream())
            .map(o -> "'" + o.getKey() + "' = '" + o.getValue() + "'")
            .collect(Collectors.joining(", "));
    return new SqlTable(label, columns) {
      @Override
      void declare(TableEnvironment env) {
        env.executeSql(
            "CREATE CATALOG paimon WITH ('type' = 'paimon', 'warehouse' = '"
                + warehouse.toUri()
                + "')");
        env.executeSql("CREATE DATABASE IF NOT EXISTS paimon.db");
        env.executeSql(
            "CREATE TABLE IF NOT EXISTS paimon.db.t (" + columns + ") WITH (" + with + ")");
      }

      @Override
      String name(String hint) {
        return hinted("paimon.db.t", hint);
      }

      @Override
      Path directory() {
        return warehouse.resolve("db.db").resolve("t");
      }

      @Override
      String readyForLookups() {
        return "nothing to do (its lookups read its bucket files)";
      }
    };
  }
}
