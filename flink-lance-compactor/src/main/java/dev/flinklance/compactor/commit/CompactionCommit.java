package dev.flinklance.compactor.commit;

import dev.flinklance.commit.RewriteHistory;
import dev.flinklance.compactor.CompactionConfig;
import dev.flinklance.compactor.commit.CompactionSummary.Outcome;
import dev.flinklance.compactor.lineage.RowLineageConfig;
import dev.flinklance.compactor.lineage.RowLineageSpill;
import dev.flinklance.compactor.lineage.SideFileSpill;
import dev.flinklance.compactor.plan.FragmentKey;
import dev.flinklance.compactor.plan.PlanRef;
import dev.flinklance.errors.LanceCalls;
import dev.flinklance.errors.LanceErrors.Kind;
import dev.flinklance.errors.LanceRetries;
import dev.flinklance.files.TableFiles;
import dev.flinklance.index.MemWal;
import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.flink.annotation.Internal;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.compaction.Compaction;
import org.lance.compaction.RewriteResult;
import org.lance.fragment.DataFile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits one plan's rewrites: drops those a concurrent change preempted, spills lineage, checks
 * what Lance will not ({@code commitCompaction} takes whatever it is given), commits once, and
 * reads the new version back.
 */
@Internal
public final class CompactionCommit {
  private static final Logger LOG = LoggerFactory.getLogger(CompactionCommit.class);
  private static final int MAX_ATTEMPTS = 3;

  private final CompactionConfig config;
  private final Optional<TableFiles> sideFiles;

  public CompactionCommit(CompactionConfig config, Optional<TableFiles> sideFiles) {
    this.config = config;
    this.sideFiles = sideFiles;
  }

  /**
   * @param dataset the table, moved to its latest version here
   * @param mayHaveLanded the plan may have committed before (restored from a checkpoint): look in
   *     the table's history first
   */
  public CompactionSummary commit(
      Dataset dataset,
      PlanRef plan,
      List<RewriteResult> rewritten,
      int failedTasks,
      boolean mayHaveLanded)
      throws IOException {
    long start = System.nanoTime();
    dataset.checkoutLatest();
    if (rewritten.isEmpty()) {
      return summary(
          plan, Outcome.NOTHING_COMMITTED, -1, dataset, List.of(), 0, 0, failedTasks, start);
    }
    if (mayHaveLanded) {
      OptionalLong landed =
          RewriteHistory.find(dataset, plan.readVersion(), newDataFiles(rewritten));
      if (landed.isPresent()) {
        LOG.info(
            "Compaction {} of {} was committed before the restore, as version {}",
            plan.planId(),
            dataset.uri(),
            landed.getAsLong());
        return summary(
            plan,
            Outcome.ALREADY_COMMITTED,
            landed.getAsLong(),
            dataset,
            List.of(),
            0,
            0,
            failedTasks,
            start);
      }
    }
    return LanceRetries.callAtOnce(
        MAX_ATTEMPTS - 1,
        EnumSet.of(Kind.CONFLICT),
        () -> commitLive(dataset, plan, rewritten, failedTasks, start),
        (conflict, retry, delay) -> {
          LOG.info(
              "Compaction {} of {} raced with another commit; checking again",
              plan.planId(),
              dataset.uri());
          dataset.checkoutLatest();
        });
  }

  /** One attempt on the dataset's version: the rewrites no concurrent change preempted. */
  private CompactionSummary commitLive(
      Dataset dataset, PlanRef plan, List<RewriteResult> rewritten, int failedTasks, long start)
      throws IOException {
    if (MemWal.isOn(dataset)) {
      LOG.warn(
          "Not committing compaction {} of {}: the table got a MemWAL ({} index) after the plan,"
              + " and lance-core 7.0.0 aborts the JVM when it commits a compaction of such a"
              + " table",
          plan.planId(),
          dataset.uri(),
          MemWal.INDEX);
      return summary(
          plan,
          Outcome.NOTHING_COMMITTED,
          -1,
          dataset,
          List.of(),
          0,
          rewritten.size(),
          failedTasks,
          start);
    }
    List<RewriteResult> live = new ArrayList<>();
    int preempted = rewritten.size() - unpreempted(dataset, rewritten, live);
    if (live.isEmpty()) {
      warnPreempted(plan, dataset, preempted);
      return summary(
          plan,
          Outcome.NOTHING_COMMITTED,
          -1,
          dataset,
          List.of(),
          0,
          preempted,
          failedTasks,
          start);
    }
    validate(dataset, live);
    RowLineageSpill spill = spill(dataset);
    List<RewriteResult> toCommit = new ArrayList<>(live);
    toCommit.addAll(Respill.of(dataset, live, spill));
    RowLineageSpill.Spilled spilled = spill.spill(toCommit);
    requireFresh(spilled);
    LanceCalls.run(
        dataset.uri(),
        "cannot commit compaction " + plan.planId(),
        () -> Compaction.commitCompaction(dataset, spilled.results(), config.lanceOptions()));
    warnPreempted(plan, dataset, preempted);
    readBack(dataset, spilled.results());
    return summary(
        plan,
        Outcome.COMMITTED,
        dataset.version(),
        dataset,
        live,
        spilled.bytes(),
        preempted,
        failedTasks,
        start);
  }

  /**
   * Collects into {@code live} the rewrites whose source fragments are all still in the table,
   * unchanged. A concurrent delete or overwrite changes or removes them: such a rewrite would
   * resurrect deleted rows or lose the overwrite, so it is dropped and planned again later.
   *
   * @return how many rewrites are live
   */
  private static int unpreempted(
      Dataset dataset, List<RewriteResult> rewritten, List<RewriteResult> live) {
    Set<FragmentKey> current =
        dataset.getFragments().stream()
            .map(f -> FragmentKey.of(f.metadata()))
            .collect(Collectors.toCollection(HashSet::new));
    for (RewriteResult result : rewritten) {
      if (result.getOriginalFragments().stream().map(FragmentKey::of).allMatch(current::contains)) {
        live.add(result);
      }
    }
    return live.size();
  }

  private void warnPreempted(PlanRef plan, Dataset dataset, int preempted) {
    if (preempted > 0) {
      LOG.warn(
          "{} rewrites of compaction {} of {} were preempted by a concurrent delete, update or"
              + " overwrite of their fragments; dropped, their fragments are planned again later",
          preempted,
          plan.planId(),
          dataset.uri());
    }
  }

  /**
   * What Lance's commitCompaction does not check: a wrong input would silently corrupt the table.
   */
  private static void validate(Dataset dataset, List<RewriteResult> live) {
    Set<String> tableFiles = new HashSet<>();
    for (Fragment fragment : dataset.getFragments()) {
      fragment.metadata().getFiles().forEach(f -> tableFiles.add(f.getPath()));
    }
    for (RewriteResult result : live) {
      List<FragmentMetadata> original = result.getOriginalFragments();
      List<FragmentMetadata> written = result.getNewFragments();
      long rowsBefore = original.stream().mapToLong(FragmentMetadata::getNumRows).sum();
      long rowsAfter = written.stream().mapToLong(FragmentMetadata::getNumRows).sum();
      boolean newFilesAreNew =
          written.stream()
              .flatMap(f -> f.getFiles().stream())
              .noneMatch(f -> tableFiles.contains(f.getPath()));
      boolean rowIdsKept =
          !dataset.hasStableRowIds() || written.stream().allMatch(f -> f.getRowIdMeta() != null);
      if (original.isEmpty()
          || written.isEmpty()
          || rowsBefore != rowsAfter
          || !newFilesAreNew
          || !rowIdsKept) {
        throw new IllegalStateException(
            String.format(
                "Lance table '%s': refusing to commit an inconsistent rewrite of fragments %s (%d"
                    + " rows) into %d new fragments (%d rows, new files not yet in the table: %s,"
                    + " row ids carried: %s)",
                dataset.uri(),
                original.stream().map(FragmentMetadata::getId).toList(),
                rowsBefore,
                written.size(),
                rowsAfter,
                newFilesAreNew,
                rowIdsKept));
      }
    }
  }

  private RowLineageSpill spill(Dataset dataset) {
    if (!dataset.hasStableRowIds()) {
      return RowLineageSpill.NONE;
    }
    RowLineageConfig lineage = RowLineageConfig.of(dataset.getConfig(), dataset.uri());
    if (!lineage.spill()) {
      return RowLineageSpill.NONE;
    }
    if (sideFiles.isEmpty()) {
      LOG.warn(
          "Table {} asks for row-lineage spill ({}), but side files are supported on local and"
              + " s3:// tables only; keeping row ids inline",
          dataset.uri(),
          RowLineageConfig.SPILL);
      return RowLineageSpill.NONE;
    }
    return new SideFileSpill(sideFiles.get(), lineage.inlineMaxBytes());
  }

  /**
   * A side file older than half of {@code compaction.side-file-min-age} may be deleted by a
   * concurrent GC before the commit lands (see SideFileGc); then the commit must not happen.
   */
  private void requireFresh(RowLineageSpill.Spilled spilled) throws IOException {
    long ageMillis = (System.nanoTime() - spilled.writtenAtNanos()) / 1_000_000;
    if (!spilled.files().isEmpty() && ageMillis > config.sideFileMinAge().toMillis() / 2) {
      throw new IOException(
          String.format(
              "side files %s were written %d ms ago, more than half of"
                  + " compaction.side-file-min-age (%s); not committing them",
              spilled.files(), ageMillis, config.sideFileMinAge()));
    }
  }

  /** The version just committed must hold exactly the new fragments, with the lineage as sent. */
  private static void readBack(Dataset dataset, List<RewriteResult> committed) {
    Map<String, FragmentMetadata> byFile = new HashMap<>();
    Set<Integer> ids = new HashSet<>();
    for (Fragment fragment : dataset.getFragments()) {
      FragmentMetadata metadata = fragment.metadata();
      metadata.getFiles().forEach(f -> byFile.put(f.getPath(), metadata));
      ids.add(metadata.getId());
    }
    for (RewriteResult result : committed) {
      for (FragmentMetadata sent : result.getNewFragments()) {
        FragmentMetadata found = byFile.get(sent.getFiles().get(0).getPath());
        if (found == null
            || found.getPhysicalRows() != sent.getPhysicalRows()
            || !java.util.Objects.equals(found.getRowIdMeta(), sent.getRowIdMeta())) {
          throw new IllegalStateException(
              String.format(
                  "Lance table '%s': version %d does not hold the compacted fragment %s as"
                      + " committed",
                  dataset.uri(), dataset.version(), sent.getFiles().get(0).getPath()));
        }
      }
      for (FragmentMetadata source : result.getOriginalFragments()) {
        if (ids.contains(source.getId())) {
          throw new IllegalStateException(
              String.format(
                  "Lance table '%s': version %d still holds compacted fragment %d",
                  dataset.uri(), dataset.version(), source.getId()));
        }
      }
    }
  }

  private static Set<String> newDataFiles(List<RewriteResult> rewritten) {
    return rewritten.stream()
        .flatMap(r -> r.getNewFragments().stream())
        .flatMap(f -> f.getFiles().stream())
        .map(DataFile::getPath)
        .collect(Collectors.toSet());
  }

  private static CompactionSummary summary(
      PlanRef plan,
      Outcome outcome,
      long version,
      Dataset dataset,
      List<RewriteResult> committed,
      long spilledBytes,
      int preempted,
      int failedTasks,
      long startNanos) {
    List<FragmentMetadata> sources =
        committed.stream().flatMap(r -> r.getOriginalFragments().stream()).toList();
    return CompactionSummary.builder(plan.planId(), outcome, plan.fragmentsBefore())
        .committed(
            version,
            outcome == Outcome.COMMITTED ? dataset.getFragments().size() : plan.fragmentsBefore())
        .rewrote(
            sources.size(),
            committed.stream().mapToInt(r -> r.getNewFragments().size()).sum(),
            sources.stream().mapToLong(FragmentMetadata::getNumRows).sum(),
            sources.stream()
                .flatMap(f -> f.getFiles().stream())
                .mapToLong(f -> f.getFileSizeBytes() == null ? 0 : f.getFileSizeBytes())
                .sum())
        .lineageBytesSpilled(spilledBytes)
        .groupsPreempted(preempted)
        .tasksFailed(failedTasks)
        .durationMs((System.nanoTime() - startNanos) / 1_000_000)
        .build();
  }
}
