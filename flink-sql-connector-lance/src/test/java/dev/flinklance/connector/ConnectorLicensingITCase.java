package dev.flinklance.connector;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipFile;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The connector jar can be distributed: its NOTICE lists every bundled dependency (with version,
 * under its license), the shade plugin's include-list and the NOTICE name the same artifacts, and a
 * runtime dependency that is neither bundled nor left to Flink on purpose fails here by name.
 */
class ConnectorLicensingITCase {
  /** Runtime dependencies the cluster provides; the jar leaves them out on purpose. */
  private static final List<String> LEFT_TO_FLINK =
      List.of(
          "org.apache.flink:",
          "org.slf4j:",
          "org.apache.logging.log4j:",
          "com.google.code.findbugs:jsr305",
          "org.checkerframework:",
          "com.google.errorprone:",
          "com.google.j2objc:");

  private static final Pattern NOTICE_ENTRY =
      Pattern.compile("^- ([\\w.-]+):([\\w.-]+):([\\w.-]+)$", Pattern.MULTILINE);

  /** {@code g:a:type[:classifier]:v:scope}, as maven-dependency-plugin's list goal writes it. */
  private static final Pattern LISTED =
      Pattern.compile("^\\s+([\\w.-]+):([\\w.-]+):[\\w.-]+:(?:[\\w.-]+:)?([\\w.-]+):(\\w+)");

  private static String notice() throws IOException {
    try (ZipFile jar = new ZipFile(System.getProperty("connector.jar"));
        InputStream notice = jar.getInputStream(jar.getEntry("META-INF/NOTICE"))) {
      return new String(notice.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static Set<String> noticeEntries() throws IOException {
    Set<String> entries = new TreeSet<>();
    Matcher matcher = NOTICE_ENTRY.matcher(notice());
    while (matcher.find()) {
      entries.add(matcher.group(1) + ":" + matcher.group(2) + ":" + matcher.group(3));
    }
    return entries;
  }

  @Test
  void noticeListsEveryBundledRuntimeDependencyWithItsVersion() throws IOException {
    Path listed = Path.of(System.getProperty("connector.dependencies"));
    Set<String> bundled = new TreeSet<>();
    for (String line : Files.readAllLines(listed)) {
      Matcher matcher = LISTED.matcher(line);
      if (!matcher.find() || matcher.group(1).equals("dev.flinklance")) {
        continue;
      }
      String artifact = matcher.group(1) + ":" + matcher.group(2) + ":" + matcher.group(3);
      if (LEFT_TO_FLINK.stream().noneMatch(artifact::startsWith)) {
        bundled.add(artifact);
      }
    }
    assertThat(bundled).as("runtime dependencies in %s", listed).hasSizeGreaterThan(50);
    assertThat(noticeEntries())
        .as(
            "META-INF/NOTICE (src/main/resources) must list exactly the bundled runtime"
                + " dependencies: add a new one there and to the shade plugin's include-list, with"
                + " its license")
        .containsExactlyElementsOf(bundled);
  }

  @Test
  void theShadeIncludeListIsTheNotice() throws Exception {
    Element pom =
        DocumentBuilderFactory.newInstance()
            .newDocumentBuilder()
            .parse(Path.of(System.getProperty("connector.pom")).toFile())
            .getDocumentElement();
    NodeList includes = pom.getElementsByTagName("include");
    Set<String> included = new TreeSet<>();
    for (int i = 0; i < includes.getLength(); i++) {
      Element include = (Element) includes.item(i);
      if (include.getParentNode().getParentNode().getNodeName().equals("artifactSet")) {
        included.add(include.getTextContent().trim());
      }
    }
    assertThat(included).contains("dev.flinklance:*");
    included.remove("dev.flinklance:*");
    Set<String> noticed = new TreeSet<>();
    for (String entry : noticeEntries()) {
      noticed.add(entry.substring(0, entry.lastIndexOf(':')));
    }
    assertThat(noticed).containsExactlyElementsOf(included);
  }

  @Test
  void licensesTravelWithTheJar() throws IOException {
    assertThat(notice())
        .contains("flink-sql-connector-lance\nCopyright 2026 The flink-lance authors\n")
        .contains("under the Apache Software License 2.0")
        .contains("- org.lance:lance-core:")
        .contains("- org.apache.arrow:arrow-vector:");
    try (ZipFile jar = new ZipFile(System.getProperty("connector.jar"))) {
      for (String license :
          List.of(
              "META-INF/LICENSE",
              "META-INF/licenses/LICENSE.jakarta-edl",
              "META-INF/licenses/LICENSE.jaxb-api-cddl",
              "META-INF/licenses/LICENSE.reactive-streams")) {
        assertThat(jar.getEntry(license)).as(license).isNotNull();
      }
      try (InputStream license = jar.getInputStream(jar.getEntry("META-INF/LICENSE"))) {
        assertThat(new String(license.readAllBytes(), StandardCharsets.UTF_8))
            .contains("Apache License")
            .contains("Version 2.0, January 2004");
      }
    }
    for (String section :
        List.of(
            "Eclipse Distribution License",
            "Common Development and Distribution",
            "MIT No Attribution")) {
      assertThat(notice()).as(section).contains(section);
    }
  }
}
