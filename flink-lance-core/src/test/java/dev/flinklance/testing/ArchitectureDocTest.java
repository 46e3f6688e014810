package dev.flinklance.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/architecture.md, lance-core.md and testing.md stay true to the code: every class they name
 * in backticks exists in the repository's sources, or is one of the Lance, Arrow, Flink or JDK
 * types it explains.
 */
class ArchitectureDocTest {
  /** The pages about the code: the architecture, lance-core's behaviours, the tests. */
  private static final List<String> PAGES =
      List.of("architecture.md", "lance-core.md", "testing.md");

  /** Names of other projects' types the page writes in backticks. */
  private static final Set<String> NOT_OURS =
      Set.of(
          "ArrowArrayStream",
          "DirectoryNamespace",
          "RestNamespace",
          "RestAdapter",
          "InternalException",
          "NamespaceAlreadyExists",
          "NamespaceNotEmpty",
          "NamespaceNotFound",
          "NotFound",
          "TableAlreadyExists",
          "Append",
          "CreateIndex",
          "Delete",
          "Update",
          "SupportsPreWriteTopology",
          "BashJavaUtils",
          "ClassCastException",
          "CommittableCollector",
          "KafkaRaftServer",
          "CommittableSummary",
          "Dataset",
          "DistanceType",
          "FixedSizeList",
          "IOException",
          "IndexParams",
          "NoClassDefFoundError",
          "Overwrite",
          "Project",
          "Query",
          "ReserveFragments",
          "Rewrite",
          "RewriteResult",
          "RetryStrategy",
          "ServiceLoader",
          "SimpleVersionedSerializer",
          "SimpleVersionedSerializerTypeSerializerProxy",
          "SinkTestSuiteBase",
          "SourceTestSuiteBase",
          "SpecializedFunction",
          "SqlGateway",
          "StandaloneSessionClusterEntrypoint",
          "SupportsCommitter",
          "SupportsPostCommitTopology",
          "SupportsPreCommitTopology",
          "TaskManagerRunner",
          "VectorSearchTableSource",
          "InputFormat",
          "InputFormatProvider",
          "LookupCacheManager",
          "LookupOptions",
          "LookupTableSource",
          "DatasetDelta",
          "ValidationException",
          "ExecutionConfig",
          "SerializerConfig",
          "InitContext",
          "WriterInitContext",
          "TypeInformation",
          "ParameterTool");

  /** A class name: capitalised, with a lower-case letter (not a SQL word such as `IN`). */
  private static final Pattern NAMED = Pattern.compile("`([A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*)`");

  private static final Pattern DECLARED =
      Pattern.compile("\\b(?:class|interface|record|enum) ([A-Z][A-Za-z0-9]*)");

  private static boolean isJdkClass(String name) {
    for (String pkg :
        new String[] {"java.lang.", "java.io.", "java.util.", "java.util.concurrent."}) {
      try {
        Class.forName(pkg + name, false, ArchitectureDocTest.class.getClassLoader());
        return true;
      } catch (ClassNotFoundException e) {
        // not in this package
      }
    }
    return false;
  }

  @Test
  void everyClassItNamesExists() throws IOException {
    Path root = Repository.root();
    Set<String> declared = new TreeSet<>();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path file :
          (Iterable<Path>)
              files
                      .filter(f -> f.toString().endsWith(".java"))
                      .filter(f -> !f.toString().contains("/target/"))
                  ::iterator) {
        Matcher matcher = DECLARED.matcher(Files.readString(file));
        while (matcher.find()) {
          declared.add(matcher.group(1));
        }
      }
    }
    assertThat(declared).as("classes found in the sources").hasSizeGreaterThan(200);

    for (String page : PAGES) {
      Set<String> missing = new TreeSet<>();
      Matcher named = NAMED.matcher(Files.readString(root.resolve("docs").resolve(page)));
      while (named.find()) {
        String name = named.group(1);
        if (!declared.contains(name) && !NOT_OURS.contains(name) && !isJdkClass(name)) {
          missing.add(name);
        }
      }
      assertThat(missing)
          .as("names in docs/%s that no source file declares (renamed or removed?)", page)
          .isEmpty();
    }
  }
}
