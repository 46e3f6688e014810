package dev.flinklance.source;

import org.apache.flink.connector.testframe.environment.MiniClusterTestEnvironment;
import org.apache.flink.connector.testframe.external.ExternalContextFactory;
import org.apache.flink.connector.testframe.junit.annotations.TestContext;
import org.apache.flink.connector.testframe.junit.annotations.TestEnv;
import org.apache.flink.connector.testframe.junit.annotations.TestSemantics;
import org.apache.flink.connector.testframe.testsuites.SourceTestSuiteBase;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.table.data.RowData;

/**
 * Flink's own Source conformance suite (flink-connector-test-utils), exactly-once: single split,
 * multiple splits, idle reader (bounded reads); savepoint restart, scale up, scale down, source
 * metrics and TaskManager failure (streaming reads of a table that gets new fragments).
 */
public class LanceSourceTestSuiteITCase extends SourceTestSuiteBase<RowData> {

  @TestEnv MiniClusterTestEnvironment flink = new MiniClusterTestEnvironment();

  @TestContext
  ExternalContextFactory<LanceSourceExternalContext> lance =
      testName -> {
        try {
          return new LanceSourceExternalContext();
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      };

  @TestSemantics
  CheckpointingMode[] semantics = new CheckpointingMode[] {CheckpointingMode.EXACTLY_ONCE};
}
