package dev.flinklance.architecture;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.methods;
import static com.tngtech.archunit.library.freeze.FreezingArchRule.freeze;
import static org.apache.flink.architecture.common.Conditions.fulfill;
import static org.apache.flink.architecture.common.Conditions.haveLeafTypes;
import static org.apache.flink.architecture.common.Predicates.areDirectlyAnnotatedWithAtLeastOneOf;
import static org.apache.flink.architecture.common.SourcePredicates.areJavaClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.junit.ArchTests;
import com.tngtech.archunit.lang.ArchRule;
import org.apache.flink.annotation.Experimental;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.Public;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.architecture.ProductionCodeArchitectureBase;

/**
 * The connector's API as Flink connectors police theirs: Flink's own ArchUnit rules
 * (flink-architecture-tests-production, as flink-connector-kafka runs them), and the same two rules
 * for our packages, which Flink's rules scope to {@code org.apache.flink}. Violations that existed
 * when a rule came in are frozen in {@code archunit-violations/}; a new one fails the build, a
 * fixed one leaves the store (commit the shrunken store).
 */
@AnalyzeClasses(
    packages = "dev.flinklance",
    importOptions = {ImportOption.DoNotIncludeTests.class, ApiArchitectureTest.NoTestJars.class})
class ApiArchitectureTest {

  /** The core module's test-jar, when it comes from the local repository rather than the build. */
  static final class NoTestJars implements ImportOption {
    @Override
    public boolean includes(Location location) {
      return !location.contains("-tests.jar");
    }
  }

  @ArchTest static final ArchTests FLINK_RULES = ArchTests.in(ProductionCodeArchitectureBase.class);

  @ArchTest
  static final ArchRule EVERY_PUBLIC_CLASS_IS_ANNOTATED =
      freeze(
          classes()
              .that()
              .resideInAPackage("dev.flinklance..")
              .and()
              .arePublic()
              .and()
              .areTopLevelClasses()
              .should(
                  fulfill(
                      areDirectlyAnnotatedWithAtLeastOneOf(
                          Internal.class,
                          Experimental.class,
                          PublicEvolving.class,
                          Public.class,
                          Deprecated.class)))
              .as(
                  "Public classes carry an API visibility annotation: @PublicEvolving for what"
                      + " users call, @Internal for the rest"));

  @ArchTest
  static final ArchRule PUBLIC_EVOLVING_API_USES_PUBLIC_TYPES =
      freeze(
          methods()
              .that()
              .areAnnotatedWith(PublicEvolving.class)
              .or()
              .areDeclaredInClassesThat(
                  areJavaClasses().and(areDirectlyAnnotatedWithAtLeastOneOf(PublicEvolving.class)))
              .and()
              .arePublic()
              .and()
              .areNotAnnotatedWith(Internal.class)
              .and()
              .areNotAnnotatedWith(Deprecated.class)
              .and()
              .areNotAnnotatedWith(Experimental.class)
              .should(
                  haveLeafTypes(
                      resideOutsideOfPackage("dev.flinklance..")
                          .or(
                              areDirectlyAnnotatedWithAtLeastOneOf(
                                  Public.class, PublicEvolving.class, Deprecated.class))))
              .as(
                  "Return and argument types of @PublicEvolving methods are @PublicEvolving too:"
                      + " an @Internal type there is API nobody promised"));
}
