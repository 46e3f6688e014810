package dev.flinklance.access;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.access.LanceDatasetOptions.ConditionalPutCheck;
import dev.flinklance.errors.LanceDatasetException;
import dev.flinklance.testing.S3TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The create-only PUT probe against the S3 test server's enforcing and raw endpoints. The racing
 * probe commits are held until all have chosen version 2, so the race is certain here; without the
 * hold the raw store was caught in 100 of 100 probes (see docs/object-stores.md).
 */
class ConditionalPutProbeITCase {

  @RegisterExtension static final S3TestServer S3 = new S3TestServer();

  @TempDir Path dir;

  @Test
  void storeThatRejectsASecondCreateOnlyPutPassesAndKeepsNothing() {
    String uri = S3.newUri("t");
    long rejectedBefore = S3.preconditionFailures();
    holdRacersOfFirstRound();

    ConditionalPutProbe.verify(new TableRef(uri, S3.storageOptions()));

    assertThat(S3.preconditionFailures() - rejectedBefore)
        .as("the store rejected the racing commits that lost")
        .isGreaterThanOrEqualTo(ConditionalPutProbe.RACERS - 1);
    assertThat(S3.keys(uri)).as("the probe table is dropped; no table created").isEmpty();
  }

  @Test
  void storeThatIgnoresCreateOnlyPutsFailsNamingTheTableAndTheOverride() {
    String uri = S3.newUri("t");
    holdRacersOfFirstRound();

    assertThatThrownBy(() -> ConditionalPutProbe.verify(new TableRef(uri, S3.rawStorageOptions())))
        .isInstanceOf(LanceDatasetException.class)
        .hasMessageStartingWith("Lance table '" + uri + "': the object store ignores create-only")
        .hasMessageContaining("'object-store.conditional-put-check' = 'WARN'");
    assertThat(S3.keys(uri)).as("the probe table is dropped").isEmpty();
  }

  @Test
  void verdictIsKeptPerTableAndStore() {
    TableRef table = new TableRef(S3.newUri("t"), S3.rawStorageOptions());
    holdRacersOfFirstRound();
    assertThatThrownBy(() -> ConditionalPutProbe.verify(table))
        .isInstanceOf(LanceDatasetException.class);
    long requests = S3.requestCount();

    assertThatThrownBy(() -> ConditionalPutProbe.verify(table))
        .isInstanceOf(LanceDatasetException.class);
    ConditionalPutProbe.verify(
        new TableRef(table.uri(), table.storageOptions(), ConditionalPutCheck.WARN));

    assertThat(S3.requestCount()).as("no second probe").isEqualTo(requests);
  }

  @Test
  void warnGoesOnAndSkipDoesNotProbe() {
    holdRacersOfFirstRound();
    ConditionalPutProbe.verify(
        new TableRef(S3.newUri("t"), S3.rawStorageOptions(), ConditionalPutCheck.WARN));

    long requests = S3.requestCount();
    ConditionalPutProbe.verify(
        new TableRef(S3.newUri("t"), S3.rawStorageOptions(), ConditionalPutCheck.SKIP));
    assertThat(S3.requestCount()).isEqualTo(requests);
  }

  @Test
  void localTablesAreNotProbed() {
    ConditionalPutProbe.verify(new TableRef(dir.resolve("t").toString(), Map.of()));
    ConditionalPutProbe.verify(new TableRef("file://" + dir.resolve("u"), Map.of()));

    assertThat(Files.exists(dir.resolve("t"))).isFalse();
    assertThat(Files.exists(dir.resolve("u"))).isFalse();
  }

  @Test
  void unwritableStoreFailsNamingTheProbeAndHowToSkipIt() {
    String uri = S3.newUri("t");
    Map<String, String> wrongSecret = new HashMap<>(S3.storageOptions());
    wrongSecret.put("aws_secret_access_key", "not-the-secret");

    assertThatThrownBy(() -> ConditionalPutProbe.verify(new TableRef(uri, wrongSecret)))
        .isInstanceOf(LanceDatasetException.class)
        .hasMessageContaining("cannot create the probe table " + uri + "/_flink_lance_probe/")
        .hasMessageContaining("'object-store.conditional-put-check' = 'SKIP' skips the check");
  }

  @Test
  void probeTableLivesUnderTheTableBeforeAnyQueryString() {
    assertThat(ConditionalPutProbe.probeUri("s3://b/t", "x"))
        .isEqualTo("s3://b/t/_flink_lance_probe/x");
    assertThat(ConditionalPutProbe.probeUri("s3://b/t/", "x"))
        .isEqualTo("s3://b/t/_flink_lance_probe/x");
    assertThat(ConditionalPutProbe.probeUri("s3+ddb://b/t?ddbTableName=d", "x"))
        .isEqualTo("s3+ddb://b/t/_flink_lance_probe/x?ddbTableName=d");
  }

  /** The first round's racing commits all write version 2's manifest at once. */
  private static void holdRacersOfFirstRound() {
    S3.holdCreateOnlyPuts(
        ConditionalPutProbe.RACERS,
        request -> request.key().endsWith(S3TestServer.manifestSuffix(2)));
  }
}
