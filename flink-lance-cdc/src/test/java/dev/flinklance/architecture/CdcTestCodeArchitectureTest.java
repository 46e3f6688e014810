package dev.flinklance.architecture;

import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.junit.ArchTests;
import com.tngtech.archunit.lang.ArchRule;
import dev.flinklance.testing.architecture.ModuleClasses;
import dev.flinklance.testing.architecture.TestCodeRules;
import org.apache.flink.architecture.rules.ITCaseRules;

/**
 * flink-lance-cdc's test classes against Flink's test-code rules and the connector's
 * (TestCodeRules).
 */
@AnalyzeClasses(locations = ModuleClasses.Tests.class)
class CdcTestCodeArchitectureTest {

  @ArchTest
  static final ArchRule TEST_BASES_ARE_ITCASES = ITCaseRules.INTEGRATION_TEST_ENDING_WITH_ITCASE;

  @ArchTest static final ArchTests CONNECTOR = ArchTests.in(TestCodeRules.class);
}
