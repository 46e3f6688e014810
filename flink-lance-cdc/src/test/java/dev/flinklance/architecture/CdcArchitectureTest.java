package dev.flinklance.architecture;

import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.junit.ArchTests;
import com.tngtech.archunit.lang.ArchRule;
import dev.flinklance.testing.architecture.ModuleClasses;
import dev.flinklance.testing.architecture.ProductionRules;
import org.apache.flink.architecture.ProductionCodeArchitectureBase;

/**
 * flink-lance-cdc's production classes against Flink's rules and the connector's (ProductionRules),
 * all but the module layering: its layers do not know this module yet, which sits above the table
 * module and may use every other one.
 */
@AnalyzeClasses(locations = ModuleClasses.Main.class)
class CdcArchitectureTest {

  @ArchTest static final ArchTests FLINK = ArchTests.in(ProductionCodeArchitectureBase.class);

  @ArchTest
  static final ArchRule PACKAGES_ARE_FREE_OF_CYCLES = ProductionRules.PACKAGES_ARE_FREE_OF_CYCLES;

  @ArchTest
  static final ArchRule DATASETS_ARE_REACHED_THROUGH_TABLE_REF =
      ProductionRules.DATASETS_ARE_REACHED_THROUGH_TABLE_REF;

  @ArchTest
  static final ArchRule TABLES_ARE_OPENED_THROUGH_THE_LOADER =
      ProductionRules.TABLES_ARE_OPENED_THROUGH_THE_LOADER;

  @ArchTest
  static final ArchRule ALLOCATORS_COME_FROM_ALLOCATORS =
      ProductionRules.ALLOCATORS_COME_FROM_ALLOCATORS;

  @ArchTest
  static final ArchRule TRANSACTIONS_ARE_READ_BY_VERSION_TRANSACTION =
      ProductionRules.TRANSACTIONS_ARE_READ_BY_VERSION_TRANSACTION;

  @ArchTest
  static final ArchRule EVERY_PUBLIC_CLASS_IS_ANNOTATED =
      ProductionRules.EVERY_PUBLIC_CLASS_IS_ANNOTATED;

  @ArchTest
  static final ArchRule PUBLIC_EVOLVING_API_USES_PUBLIC_TYPES =
      ProductionRules.PUBLIC_EVOLVING_API_USES_PUBLIC_TYPES;
}
