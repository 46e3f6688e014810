package dev.flinklance.sink.it;

import dev.flinklance.testing.LanceTestTables;
import dev.flinklance.testing.S3TestServer;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The exactly-once {@link FailoverCases} on {@code s3://}, against the S3 test server. */
class S3ExactlyOnceITCase extends FailoverCases {

  @RegisterExtension static final S3TestServer S3 = new S3TestServer();

  @RegisterExtension static final MiniClusterExtension CLUSTER = SinkTestCluster.create();

  @Override
  String newTable() {
    return S3.newUri("t");
  }

  @Override
  Map<String, String> storageOptions() {
    return S3.storageOptions();
  }

  @Override
  Set<String> unreferencedDataFiles(String table) {
    Set<String> referenced = LanceTestTables.referencedDataFiles(table, storageOptions());
    return S3.keys(table + "/data").stream()
        .map(key -> key.substring(key.lastIndexOf('/') + 1))
        .filter(name -> !referenced.contains(name))
        .collect(Collectors.toSet());
  }
}
