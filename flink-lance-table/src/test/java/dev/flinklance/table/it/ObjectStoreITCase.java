package dev.flinklance.table.it;

import static dev.flinklance.table.testing.Sql.exec;
import static dev.flinklance.table.testing.Sql.queryStrings;
import static org.assertj.core.api.Assertions.assertThat;

import dev.flinklance.table.testing.Sql;
import dev.flinklance.table.testing.TableTestCluster;
import dev.flinklance.testing.S3TestServer;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The SQL connector and the catalog on an s3:// warehouse (S3Proxy on 127.0.0.1). */
class ObjectStoreITCase {
  @RegisterExtension static final MiniClusterExtension CLUSTER = TableTestCluster.create();
  @RegisterExtension static final S3TestServer S3 = new S3TestServer();

  private static String storageOptions() {
    Map<String, String> options = S3.storageOptions();
    return options.entrySet().stream()
        .map(e -> String.format(", 'storage.%s' = '%s'", e.getKey(), e.getValue()))
        .collect(Collectors.joining());
  }

  @Test
  void sqlRoundTripWithPushdown() {
    String path = S3.newUri("events");
    TableEnvironment env = Sql.batch();
    exec(
        env,
        "CREATE TABLE events (id BIGINT NOT NULL, name STRING) WITH ('connector' = 'lance',"
            + " 'path' = '"
            + path
            + "'"
            + storageOptions()
            + ")");
    String values =
        IntStream.range(0, 100)
            .mapToObj(i -> "(" + i + ", 'name-" + i + "')")
            .collect(Collectors.joining(", "));
    exec(env, "INSERT INTO events VALUES " + values);

    String select = "SELECT id, name FROM events WHERE id >= 95 AND name LIKE 'name-9%'";
    assertThat(env.explainSql(select)).contains("filter=[and(>=(id, 95)");
    assertThat(queryStrings(env, select))
        .containsExactlyInAnyOrder(
            "+I[95, name-95]",
            "+I[96, name-96]",
            "+I[97, name-97]",
            "+I[98, name-98]",
            "+I[99, name-99]");
    assertThat(queryStrings(env, "SELECT COUNT(*) FROM events")).containsExactly("+I[100]");
  }

  @Test
  void catalogLifecycle() {
    String warehouse = S3.newUri("lake");
    String createCatalog =
        "CREATE CATALOG lake WITH ('type' = 'lance', 'warehouse' = '"
            + warehouse
            + "'"
            + storageOptions()
            + ")";
    TableEnvironment env = Sql.batch();
    exec(env, createCatalog);
    exec(env, "USE CATALOG lake");
    exec(env, "CREATE DATABASE db");
    exec(env, "CREATE TABLE db.t (id BIGINT, v STRING) WITH ('sink.max-rows-per-file' = '10')");
    exec(env, "INSERT INTO db.t VALUES (1, 'one'), (2, 'two')");

    TableEnvironment second = Sql.batch();
    exec(second, createCatalog);
    exec(second, "USE CATALOG lake");
    assertThat(queryStrings(second, "SHOW DATABASES")).containsExactly("+I[db]", "+I[default]");
    assertThat(queryStrings(second, "SHOW TABLES FROM db")).containsExactly("+I[t]");
    assertThat(queryStrings(second, "SHOW CREATE TABLE db.t").get(0))
        .contains("'sink.max-rows-per-file' = '10'")
        .doesNotContain("storage.");
    assertThat(queryStrings(second, "SELECT * FROM db.t WHERE id = 2"))
        .containsExactly("+I[2, two]");

    exec(second, "DROP DATABASE db CASCADE");
    assertThat(queryStrings(env, "SHOW DATABASES")).containsExactly("+I[default]");
    assertThat(S3.keys(warehouse + "/db")).isEmpty();
  }
}
