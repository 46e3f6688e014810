package dev.flinklance.testing.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.describe;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackages;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.methods;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static com.tngtech.archunit.library.freeze.FreezingArchRule.freeze;
import static org.apache.flink.architecture.common.Conditions.fulfill;
import static org.apache.flink.architecture.common.Conditions.haveLeafTypes;
import static org.apache.flink.architecture.common.Predicates.areDirectlyAnnotatedWithAtLeastOneOf;
import static org.apache.flink.architecture.common.SourcePredicates.areJavaClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import dev.flinklance.access.ConditionalPutProbe;
import dev.flinklance.access.TableRef;
import dev.flinklance.arrow.Allocators;
import dev.flinklance.commit.VersionTransaction;
import java.util.List;
import java.util.Set;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.annotation.Experimental;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.Public;
import org.apache.flink.annotation.PublicEvolving;
import org.lance.CommitBuilder;
import org.lance.Dataset;
import org.lance.Fragment;

/**
 * The connector's own rules for production code, run by every module's architecture test over that
 * module's classes ({@link ModuleClasses.Main}) next to Flink's {@code
 * ProductionCodeArchitectureBase}. Violations that existed when a rule came in are frozen in the
 * module's {@code archunit-violations/}: a new one fails the build, a fixed one leaves the store
 * (commit the shrunken store).
 */
public final class ProductionRules {
  private ProductionRules() {}

  private static final String SINK = "dev.flinklance.sink..";
  private static final String SOURCE = "dev.flinklance.source..";
  private static final String COMPACTOR = "dev.flinklance.compactor..";
  private static final String TABLE = "dev.flinklance.table..";
  private static final String CDC = "dev.flinklance.cdc..";

  @ArchTest
  public static final ArchRule MODULES_ARE_LAYERED =
      layeredArchitecture()
          .consideringOnlyDependenciesInLayers()
          // a module's test sees only its own classes: the other layers are empty there
          .withOptionalLayers(true)
          .layer("core")
          .definedBy(
              resideInAPackage("dev.flinklance..")
                  .and(resideOutsideOfPackages(SINK, SOURCE, COMPACTOR, TABLE, CDC)))
          .layer("sink")
          .definedBy(SINK)
          .layer("source")
          .definedBy(SOURCE)
          .layer("compactor")
          .definedBy(COMPACTOR)
          .layer("table")
          .definedBy(TABLE)
          .layer("cdc")
          .definedBy(CDC)
          .whereLayer("core")
          .mayNotAccessAnyLayer()
          .whereLayer("sink")
          .mayOnlyAccessLayers("core")
          .whereLayer("source")
          .mayOnlyAccessLayers("core")
          .whereLayer("compactor")
          .mayOnlyAccessLayers("core")
          .whereLayer("table")
          .mayOnlyBeAccessedByLayers("cdc")
          .as(
              "Modules depend downwards: core on no other module; sink, source and compactor on"
                  + " core only (the compactor takes committed versions through core's"
                  + " dev.flinklance.maintenance, not from the sink); the table module on those;"
                  + " the CDC job on all");

  @ArchTest
  public static final ArchRule PACKAGES_ARE_FREE_OF_CYCLES =
      freeze(
              slices()
                  .matching("dev.flinklance.(**)")
                  .should()
                  .beFreeOfCycles()
                  .as("Packages are free of cycles, a package and its subpackages too"))
          .associateViolationLinesVia(new SameCycle());

  /**
   * Lance's ways to reach a table by its URI, past the one place that adds the namespace, the
   * vended credentials, the storage options and the URI in every error.
   */
  private static final DescribedPredicate<JavaCall<?>> REACH_A_TABLE_BY_URI =
      describe(
          "open, create or write a Lance dataset by URI",
          call ->
              calls(
                      call,
                      Dataset.class,
                      "open",
                      "write",
                      "create",
                      "commit",
                      "commitAppend",
                      "commitOverwrite")
                  || calls(call, Fragment.class, "write", "create")
                  || (calls(call, CommitBuilder.class, "<init>")
                      && call.getTarget()
                          .getRawParameterTypes()
                          .get(0)
                          .isEquivalentTo(String.class)));

  @ArchTest
  public static final ArchRule DATASETS_ARE_REACHED_THROUGH_TABLE_REF =
      noClasses()
          .that(
              doNotBelongTo(
                  // the one way a table is reached (open, fragment writes)
                  TableRef.class.getName(),
                  // a table's first commit, by URI since there is no dataset yet (package-private)
                  "dev.flinklance.access.TableCreation",
                  // its own throwaway probe dataset next to the table, not the table
                  ConditionalPutProbe.class.getName()))
          .should()
          .callCodeUnitWhere(REACH_A_TABLE_BY_URI)
          .as(
              "Lance datasets are opened, created and written by URI only in TableRef and"
                  + " TableCreation (and ConditionalPutProbe's own probe): everything else opens"
                  + " tables through dev.flinklance.access");

  @ArchTest
  public static final ArchRule TABLES_ARE_OPENED_THROUGH_THE_LOADER =
      noClasses()
          .that()
          .resideOutsideOfPackage("dev.flinklance.access..")
          .should()
          .callMethodWhere(
              describe(
                  "TableRef.open or openIfExists",
                  call -> calls(call, TableRef.class, "open", "openIfExists")))
          .as(
              "Operators open tables through OpenTable (TableLoader, FollowedTable), which owns"
                  + " the allocator and checks the table stays the same: TableRef's open"
                  + " methods only in dev.flinklance.access (creating a table is"
                  + " TableRef.createIfAbsent's)");

  @ArchTest
  public static final ArchRule ALLOCATORS_COME_FROM_ALLOCATORS =
      noClasses()
          .that(
              doNotBelongTo(
                  Allocators.class.getName(),
                  // the allocator Allocators.forBatches makes (package-private)
                  "dev.flinklance.arrow.BatchAllocator"))
          .should()
          .callConstructorWhere(
              describe(
                  "new RootAllocator(...)", call -> calls(call, RootAllocator.class, "<init>")))
          .as(
              "Root allocators are made only by Allocators, which owns their limits and"
                  + " closes them once Lance has let go");

  @ArchTest
  public static final ArchRule TRANSACTIONS_ARE_READ_BY_VERSION_TRANSACTION =
      noClasses()
          .that()
          .doNotBelongToAnyOf(VersionTransaction.class)
          .should()
          .callMethodWhere(
              describe(
                  "Dataset.readTransaction()",
                  call -> calls(call, Dataset.class, "readTransaction")))
          .as(
              "A version's transaction is read only by VersionTransaction: a direct"
                  + " readTransaction() fails for good at a compaction of an indexed table"
                  + " (lance-core 7.0.0), which once stopped every streaming read of such a table");

  @ArchTest
  public static final ArchRule EVERY_PUBLIC_CLASS_IS_ANNOTATED =
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
                  + " users call, @Internal for the rest");

  @ArchTest
  public static final ArchRule PUBLIC_EVOLVING_API_USES_PUBLIC_TYPES =
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
                  + " an @Internal type there is API nobody promised");

  /** Neither one of these classes nor a class nested in one. */
  private static DescribedPredicate<JavaClass> doNotBelongTo(String... classNames) {
    List<String> names = List.of(classNames);
    return describe(
        "do not belong to any of " + names,
        type ->
            names.stream()
                .noneMatch(
                    name -> type.getName().equals(name) || type.getName().startsWith(name + "$")));
  }

  private static boolean calls(JavaCall<?> call, Class<?> owner, String... names) {
    return call.getTargetOwner().isEquivalentTo(owner) && Set.of(names).contains(call.getName());
  }
}
