package dev.flinklance.table.it;

import static dev.flinklance.table.testing.Sql.exec;
import static dev.flinklance.table.testing.Sql.queryStrings;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.access.TableRef;
import dev.flinklance.table.testing.Sql;
import dev.flinklance.table.testing.VendingNamespace;
import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.S3TestServer;
import dev.flinklance.testing.TestClusters;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A namespace that vends credentials valid for {@value #VALIDITY_MS} ms ({@link VendingNamespace}
 * on the S3 test server, which refuses a key once it expired): a streaming job keeps writing past
 * many expiries, and reading, compacting and dropping work with the credentials of the moment. The
 * catalog itself holds no key of the store.
 */
class VendedCredentialsITCase {
  @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.withoutRestarts();
  @RegisterExtension static final S3TestServer S3 = new S3TestServer();

  private static final long VALIDITY_MS = 2000;

  private final String root = S3.newUri("vended");

  private String createCatalog() {
    VendingNamespace.register("vended", S3);
    Map<String, String> permanent = S3.storageOptions();
    Map<String, String> options = new HashMap<>();
    options.put("type", "lance");
    options.put("impl", VendingNamespace.class.getName());
    options.put("root", root);
    options.put("vending.server", "vended");
    options.put("vending.validity-ms", Long.toString(VALIDITY_MS));
    permanent.forEach((key, value) -> options.put("vending.storage." + key, value));
    // what a table needs besides credentials: the namespace vends those
    for (String key : new String[] {"aws_region", "aws_endpoint", "allow_http"}) {
      options.put("storage." + key, permanent.get(key));
    }
    // A key pair the server refuses: a call without vended credentials fails there (403) instead
    // of Lance asking the AWS credential chain, which would try a cloud metadata address.
    options.put("storage.aws_access_key_id", "not-vended");
    options.put("storage.aws_secret_access_key", "not-vended-secret");
    return "CREATE CATALOG lake WITH ("
        + options.entrySet().stream()
            .map(e -> String.format("'%s' = '%s'", e.getKey(), e.getValue()))
            .collect(Collectors.joining(", "))
        + ")";
  }

  @Test
  void aStreamingJobWritesPastManyExpiries() throws Exception {
    TableEnvironment env = Sql.streaming(Duration.ofMillis(300));
    exec(env, createCatalog());
    exec(env, "USE CATALOG lake");
    exec(env, "CREATE TABLE events (id BIGINT, v STRING) WITH ('stable-row-ids' = 'true')");
    exec(
        env,
        "CREATE TEMPORARY TABLE gen (id BIGINT) WITH ('connector' = 'datagen',"
            + " 'rows-per-second' = '400', 'number-of-rows' = '6000',"
            + " 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '6000')");
    int issuedBefore = S3.temporaryCredentialsIssued();
    int describesBefore = VendingNamespace.describes();

    exec(env, "INSERT INTO events SELECT id, CAST(id AS STRING) FROM gen");

    assertThat(S3.temporaryCredentialsIssued() - issuedBefore)
        .as("the job (about 15 s of writing) outlived several credentials")
        .isGreaterThan(5);
    assertThat(VendingNamespace.describes()).isGreaterThan(describesBefore);
    TableEnvironment batch = Sql.batch();
    exec(batch, createCatalog());
    assertThat(
            queryStrings(
                batch,
                "SELECT COUNT(*), COUNT(DISTINCT id), MIN(id), MAX(id) FROM lake.`default`.events"))
        .containsExactly("+I[6000, 6000, 1, 6000]");
    Thread.sleep(VALIDITY_MS + 500); // every credential the read had has expired
    assertThat(queryStrings(batch, "CALL lake.sys.compact('events')"))
        .singleElement()
        .asString()
        .startsWith("+I[COMMITTED, ");
    assertThat(queryStrings(batch, "SELECT COUNT(*) FROM lake.`default`.events"))
        .containsExactly("+I[6000]");
    exec(batch, "DROP TABLE lake.`default`.events");
    assertThat(queryStrings(batch, "SHOW TABLES IN lake.`default`")).isEmpty();
  }

  /** The test means something only if an expired credential is refused. */
  @Test
  void theServerRefusesAnExpiredCredential() throws Exception {
    String table = S3.newUri("expiring");
    try (BufferAllocator allocator = new RootAllocator()) {
      new TableRef(table, S3.storageOptions())
          .createIfAbsent(
              allocator,
              new Schema(List.of(Field.nullable("id", new ArrowType.Int(64, true)))),
              false,
              null)
          .orElseThrow()
          .close();
    }
    Map<String, String> expiring = new HashMap<>(S3.temporaryCredentials(Duration.ofSeconds(6)));
    assertThat(LanceTestTables.latestVersion(table, expiring)).isEqualTo(1);
    Thread.sleep(6500);
    assertThatThrownBy(() -> LanceTestTables.latestVersion(table, expiring))
        .hasStackTraceContaining("403");
  }
}
