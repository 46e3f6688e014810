package dev.flinklance.compactor.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.testing.LanceTestTables;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Checks that compaction left every row's lineage as its append made it: for each row, the version
 * that created it is an Append, and in that version the row had the same row id, created-at and
 * last-updated-at values as now.
 */
public final class LineageCheck {
  private LineageCheck() {}

  public static void assertUnchangedSinceAppend(String uri) {
    Map<Long, List<Object>> now = LineageTables.rowsByRowId(uri);
    Set<Long> appends =
        LanceTestTables.commits(uri).stream()
            .filter(c -> c.operation().equals("Append"))
            .map(LanceTestTables.Commit::version)
            .collect(Collectors.toSet());
    Map<Long, Map<Long, List<Object>>> byCreatedAt = new HashMap<>();
    now.forEach(
        (rowId, row) ->
            byCreatedAt
                .computeIfAbsent(Long.parseLong((String) row.get(2)), v -> new HashMap<>())
                .put(rowId, row));
    assertThat(appends).containsAll(byCreatedAt.keySet());
    byCreatedAt.forEach(
        (version, rows) -> {
          Map<Long, List<Object>> then = LineageTables.rowsByRowIdAt(uri, version);
          rows.forEach(
              (rowId, row) ->
                  assertThat(then.get(rowId))
                      .as("row id %d as created in version %d", rowId, version)
                      .isEqualTo(row));
        });
  }
}
