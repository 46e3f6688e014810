package dev.flinklance.architecture;

import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.junit.ArchTests;
import dev.flinklance.testing.architecture.ModuleClasses;
import dev.flinklance.testing.architecture.ProductionRules;
import org.apache.flink.architecture.ProductionCodeArchitectureBase;

/**
 * flink-lance-cdc's production classes against Flink's rules and the connector's (ProductionRules).
 */
@AnalyzeClasses(locations = ModuleClasses.Main.class)
class CdcArchitectureTest {

  @ArchTest static final ArchTests FLINK = ArchTests.in(ProductionCodeArchitectureBase.class);

  @ArchTest static final ArchTests CONNECTOR = ArchTests.in(ProductionRules.class);
}
