package dev.flinklance.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.lance.CommitBuilder;
import org.lance.Dataset;
import org.lance.FragmentMetadata;
import org.lance.ReadOptions;
import org.lance.Transaction;
import org.lance.operation.Append;

/** The S3 test server with real Lance on it: plain use, create-only PUTs, faults. */
class S3TestServerITCase {

  @RegisterExtension static final S3TestServer S3 = new S3TestServer();

  @Test
  void lanceCreatesAppendsAndScansThroughTheServer() {
    String uri = S3.newUri("t");
    Map<String, String> options = S3.storageOptions();
    TestFragments.createTable(uri, options, TestFragments.SCHEMA);
    LanceTestTables.appendFragments(uri, options, TestFragments.write(uri, options, 1, 2, 3));
    LanceTestTables.appendFragments(uri, options, TestFragments.write(uri, options, 4, 5));

    assertThat(LanceTestTables.readLongs(uri, options, "id")).containsExactly(1L, 2L, 3L, 4L, 5L);
    assertThat(LanceTestTables.latestVersion(uri, options)).isEqualTo(3);
    assertThat(S3.keys(uri))
        .as("the table's objects are in the bucket")
        .anyMatch(key -> key.contains("/_versions/"))
        .anyMatch(key -> key.contains("/data/") && key.endsWith(".lance"));
  }

  @Test
  void racingCommitsBothLandWhereCreateOnlyPutsAreEnforced() throws Exception {
    String uri = S3.newUri("enforced");
    long rejectedBefore = S3.preconditionFailures();

    raceTwoAppends(uri, S3.storageOptions());

    assertThat(S3.preconditionFailures() - rejectedBefore)
        .as("the second create-only PUT of the same manifest got 412")
        .isEqualTo(1);
    assertThat(LanceTestTables.readLongs(uri, S3.storageOptions(), "id"))
        .containsExactlyInAnyOrder(10L, 11L, 20L, 21L);
    assertThat(LanceTestTables.latestVersion(uri, S3.storageOptions())).isEqualTo(3);
  }

  @Test
  void rawEndpointSilentlyLosesOneOfTwoRacingCommits() throws Exception {
    String uri = S3.newUri("raw");
    long rejectedBefore = S3.preconditionFailures();

    List<Long> versions = raceTwoAppends(uri, S3.rawStorageOptions());

    assertThat(versions).as("both commits claim the same version").containsExactly(2L, 2L);
    assertThat(S3.preconditionFailures()).isEqualTo(rejectedBefore);
    assertThat(LanceTestTables.readLongs(uri, S3.rawStorageOptions(), "id").stream().sorted())
        .as("one commit overwrote the other's manifest")
        .isIn(List.of(10L, 11L), List.of(20L, 21L));
  }

  /**
   * Two Appends from version 1 whose create-only PUTs are held until both have chosen version 2;
   * returns the versions the two commits report.
   */
  private static List<Long> raceTwoAppends(String uri, Map<String, String> options)
      throws Exception {
    TestFragments.createTable(uri, options, TestFragments.SCHEMA);
    List<FragmentMetadata> first = TestFragments.write(uri, options, 10, 11);
    List<FragmentMetadata> second = TestFragments.write(uri, options, 20, 21);
    S3.holdCreateOnlyPuts(2);
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try {
      Future<Long> a = threads.submit(() -> append(uri, options, first));
      Future<Long> b = threads.submit(() -> append(uri, options, second));
      return LongStream.of(a.get(), b.get()).sorted().boxed().toList();
    } finally {
      threads.shutdownNow();
    }
  }

  private static long append(
      String uri, Map<String, String> options, List<FragmentMetadata> fragments) {
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset =
            Dataset.open()
                .allocator(allocator)
                .uri(uri)
                .readOptions(new ReadOptions.Builder().setStorageOptions(options).build())
                .build();
        Transaction append =
            new Transaction.Builder()
                .readVersion(dataset.version())
                .operation(Append.builder().fragments(fragments).build())
                .build();
        Dataset committed = new CommitBuilder(dataset).maxRetries(5).execute(append)) {
      return committed.version();
    }
  }

  @Test
  void injectedFailuresAreAnswered503() {
    String uri = S3.newUri("faults");
    TestFragments.createTable(uri, S3.storageOptions(), TestFragments.SCHEMA);
    Map<String, String> noRetries = new HashMap<>(S3.storageOptions());
    noRetries.put("client_max_retries", "0");

    S3.failNext(100);
    assertThatThrownBy(() -> LanceTestTables.latestVersion(uri, noRetries))
        .hasMessageContaining("503");
    S3.failNext(0);
    assertThat(LanceTestTables.latestVersion(uri, noRetries)).isEqualTo(1);

    S3.failNext(4);
    assertThat(LanceTestTables.latestVersion(uri, S3.storageOptions()))
        .as("Lance retries transient failures")
        .isEqualTo(1);
    assertThat(S3.pendingFailures()).isZero();
  }

  @Test
  void silentEndpointAcceptsButNeverAnswers() throws Exception {
    URI endpoint = URI.create(S3.silentStorageOptions().get("aws_endpoint"));
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(endpoint.getHost(), endpoint.getPort()), 2_000);
      socket
          .getOutputStream()
          .write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      socket.setSoTimeout(500);
      InputStream in = socket.getInputStream();
      assertThatThrownBy(in::read).isInstanceOf(SocketTimeoutException.class);
    }
  }

  @Test
  void storageOptionsAlwaysPinRegionAndLoopbackEndpoint() {
    for (Map<String, String> options :
        List.of(S3.storageOptions(), S3.rawStorageOptions(), S3.silentStorageOptions())) {
      assertThat(options).containsEntry("aws_region", S3TestServer.REGION);
      assertThat(options.get("aws_endpoint")).startsWith("http://127.0.0.1:");
    }
  }
}
