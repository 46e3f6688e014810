package dev.flinklance.e2e.soak;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The soak's curves are drawn from its CSV files as the run writes them. */
class SoakPlotTest {
  @TempDir Path dir;

  /**
   * A TaskManager's first sample can come before it reports its heap: that cell is empty, at the
   * end of the line (an hour's run failed here, after its last sample and before its checks).
   */
  @Test
  void drawsASampleWithoutTheHeap() throws Exception {
    Files.writeString(
        dir.resolve("soak.csv"),
        String.join(
            "\n",
            "seconds,append_rows_per_s,upsert_changes_per_s,checkpoint_ms_append,checkpoint_ms_upsert,checkpoint_ms_copy,commit_ms_append,commit_ms_upsert,commit_ms_copy,append_fragments,append_versions,append_manifest_bytes,append_files_on_disk,append_files_referenced,upsert_fragments,upsert_versions,upsert_manifest_bytes,upsert_files_on_disk,upsert_files_referenced,copy_fragments,copy_versions,copy_manifest_bytes,copy_files_on_disk,copy_files_referenced,lookups_fragments,lookups_versions,lookups_manifest_bytes,lookups_files_on_disk,lookups_files_referenced,copy_versions_behind,copy_fetch_lag_ms,read_queries,read_mean_ms,read_max_ms,read_failures",
            "10,2747,551,52,73,62,22,161,72,16,67,1931,115,16,10,62,2504,90,10,17,33,3204,21,17,14,15,1792,14,14,19,8437,34,148,2934,0",
            "20,880,355,79,48,43,22,161,72,6,91,1119,153,6,12,81,2980,109,12,11,51,2702,30,11,2,38,860,36,2,19,8437,30,33,83,0"));
    Files.writeString(
        dir.resolve("soak-memory.csv"),
        String.join(
            "\n",
            "seconds,taskmanager,rss_mb,heap_used_mb",
            "10,taskmanager-1,739,138",
            "10,taskmanager-2,631,",
            "20,taskmanager-1,745,140",
            "20,taskmanager-2,764,100"));

    Path svg = SoakPlot.write(dir, List.of(15L));

    assertThat(Files.readString(svg)).contains("<svg", "taskmanager-1", "taskmanager-2");
  }
}
