package dev.flinklance.sink.it;

import org.apache.flink.connector.testframe.environment.MiniClusterTestEnvironment;
import org.apache.flink.connector.testframe.external.ExternalContextFactory;
import org.apache.flink.connector.testframe.junit.annotations.TestContext;
import org.apache.flink.connector.testframe.junit.annotations.TestEnv;
import org.apache.flink.connector.testframe.junit.annotations.TestSemantics;
import org.apache.flink.connector.testframe.testsuites.SinkTestSuiteBase;
import org.apache.flink.core.execution.CheckpointingMode;

/**
 * Flink's own Sink V2 conformance suite (flink-connector-test-utils): basic write, restart from a
 * savepoint, scale up, scale down and the numRecordsSend metric, all exactly-once.
 */
public class FlinkSinkTestSuiteITCase extends SinkTestSuiteBase<String> {

  @TestEnv MiniClusterTestEnvironment flink = new MiniClusterTestEnvironment();

  @TestContext
  ExternalContextFactory<LanceExternalContext> lance =
      testName -> {
        try {
          return new LanceExternalContext();
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      };

  @TestSemantics
  CheckpointingMode[] semantics = new CheckpointingMode[] {CheckpointingMode.EXACTLY_ONCE};
}
