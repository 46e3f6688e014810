package dev.flinklance.testing.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.describe;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.JavaModifier.ABSTRACT;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.apache.flink.architecture.common.Conditions.fulfill;
import static org.apache.flink.architecture.common.JavaFieldPredicates.annotatedWith;
import static org.apache.flink.architecture.common.Predicates.areFieldOfType;
import static org.apache.flink.architecture.common.Predicates.areStaticFinalOfTypeWithAnnotation;
import static org.apache.flink.architecture.common.Predicates.containAnyFieldsInClassHierarchyThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import dev.flinklance.testing.TestClusters;
import java.util.Arrays;
import java.util.Set;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The connector's rules for test code, run by every module's test-code architecture test over that
 * module's test classes ({@link ModuleClasses.Tests}) next to Flink's {@code ITCaseRules}.
 *
 * <p>Flink's own MiniCluster rule takes every {@code *ITCase} for a MiniCluster test; here an
 * ITCase is any test failsafe runs (an object store, a namespace, a packaged jar, a separate JVM),
 * so the rule below holds for the ITCases that run Flink in the test JVM.
 */
public final class TestCodeRules {
  private TestCodeRules() {}

  private static final Set<String> ENVIRONMENTS =
      Set.of(
          "org.apache.flink.streaming.api.environment.StreamExecutionEnvironment",
          "org.apache.flink.table.api.TableEnvironment");

  /** The test class (its lambdas included) gets a Flink environment, which runs jobs here. */
  private static final DescribedPredicate<JavaClass> RUN_FLINK_IN_THE_TEST_JVM =
      describe(
          "run Flink jobs in the test JVM",
          test ->
              test.getDirectDependenciesFromSelf().stream()
                  .anyMatch(
                      dependency ->
                          ENVIRONMENTS.stream()
                              .anyMatch(dependency.getTargetClass()::isAssignableTo)));

  /** What Flink's ITCaseRules accepts outside flink-runtime, from its JUnit 5 branches. */
  private static final DescribedPredicate<JavaClass> SHARE_A_MINI_CLUSTER =
      containAnyFieldsInClassHierarchyThat(
              areStaticFinalOfTypeWithAnnotation(
                      MiniClusterExtension.class.getName(), RegisterExtension.class)
                  .or(
                      // Flink's connector test suites (flink-connector-test-utils)
                      areFieldOfType(
                              "org.apache.flink.connector.testframe.environment.MiniClusterTestEnvironment")
                          .and(
                              annotatedWith(
                                  "org.apache.flink.connector.testframe.junit.annotations.TestEnv"))))
          .or(
              describe(
                  "are annotated with @ExtendWith(MiniClusterExtension.class)",
                  test ->
                      test.tryGetAnnotationOfType(ExtendWith.class)
                          .map(
                              extendWith ->
                                  Arrays.asList(extendWith.value())
                                      .contains(MiniClusterExtension.class))
                          .orElse(false)));

  @ArchTest
  public static final ArchRule ITCASES_RUNNING_FLINK_SHARE_A_MINI_CLUSTER =
      classes()
          .that()
          .haveSimpleNameEndingWith("ITCase")
          .and()
          .areTopLevelClasses()
          .and()
          .doNotHaveModifier(ABSTRACT)
          .and(RUN_FLINK_IN_THE_TEST_JVM)
          .should(fulfill(SHARE_A_MINI_CLUSTER))
          .allowEmptyShould(true)
          .as(
              "ITCases that run Flink jobs in the test JVM share a MiniCluster: a static final"
                  + " @RegisterExtension MiniClusterExtension (TestClusters), or Flink's @TestEnv"
                  + " MiniClusterTestEnvironment");

  @ArchTest
  public static final ArchRule MINI_CLUSTERS_COME_FROM_TEST_CLUSTERS =
      noClasses()
          .that()
          .doNotBelongToAnyOf(TestClusters.class)
          .should()
          .callConstructorWhere(
              describe(
                  "new MiniClusterExtension(...)",
                  call -> call.getTargetOwner().isEquivalentTo(MiniClusterExtension.class)))
          .as("MiniClusters are shaped in one place, TestClusters");

  @ArchTest
  public static final ArchRule NO_JUNIT_4 =
      noClasses()
          .that()
          .resideInAPackage("dev.flinklance..")
          .should()
          .dependOnClassesThat(
              resideInAnyPackage("junit..", "org.junit..")
                  .and(
                      describe(
                          "are not JUnit 5",
                          type ->
                              !type.getPackageName().startsWith("org.junit.jupiter")
                                  && !type.getPackageName().startsWith("org.junit.platform"))))
          .as("Tests are JUnit 5 tests: JUnit 4 (org.junit, junit) is not used");
}
