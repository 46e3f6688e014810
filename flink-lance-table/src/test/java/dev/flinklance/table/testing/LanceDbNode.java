package dev.flinklance.table.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * A second Lance implementation for interop tests: the LanceDB Node SDK (with a much newer Lance
 * inside), installed from npm into {@code target/lancedb-node} on first use and driven by {@code
 * lancedb-node/interop.mjs}. Tests skip where node or npm is missing, the platform has no SDK
 * binary, or npm cannot install it; a script that runs and fails fails the test.
 */
public final class LanceDbNode {
  static final String SDK_VERSION = "0.39.0";

  /** The apache-arrow the SDK takes as a peer (at most 18.1.0). */
  static final String ARROW_VERSION = "18.1.0";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static Path home;

  private LanceDbNode() {}

  /** The rows ({@code rows}), Arrow field types ({@code fields}) and version of a table. */
  public static JsonNode read(Path database, String table) throws Exception {
    return JSON.readTree(run("read", database, table));
  }

  /** Creates the table {@code interop.mjs write} describes, then appends to it and deletes rows. */
  public static void write(Path database, String table) throws Exception {
    run("write", database, table);
  }

  /** The SDK's own schema changes: adds the STRING column {@code extra}, renames name to label. */
  public static void widen(Path database, String table) throws Exception {
    run("widen", database, table);
  }

  /** The SDK's own schema change: drops the column {@code score}. */
  public static void narrow(Path database, String table) throws Exception {
    run("narrow", database, table);
  }

  private static String run(String command, Path database, String table) throws Exception {
    Path dir = installed();
    List<String> line = List.of("node", "interop.mjs", command, database.toString(), table);
    Output out = exec(dir, line, 120);
    if (out.exit != 0) {
      throw new AssertionError(
          "LanceDB Node SDK: " + String.join(" ", line) + " exited " + out.exit + ":\n" + out.err);
    }
    return out.out;
  }

  private static synchronized Path installed() throws Exception {
    if (home != null) {
      return home;
    }
    String platform = platform();
    Assumptions.assumeTrue(platform != null, "no LanceDB Node SDK binary for this platform");
    Path dir = Path.of("target", "lancedb-node").toAbsolutePath();
    Files.createDirectories(dir);
    try {
      exec(dir, List.of("node", "--version"), 30);
    } catch (IOException e) {
      Assumptions.abort("node is not installed: " + e.getMessage());
    }
    try (InputStream script = LanceDbNode.class.getResourceAsStream("/lancedb-node/interop.mjs")) {
      Files.copy(script, dir.resolve("interop.mjs"), StandardCopyOption.REPLACE_EXISTING);
    }
    Path sdk = dir.resolve("node_modules/@lancedb/lancedb/package.json");
    if (!Files.exists(sdk) || !Files.readString(sdk).contains("\"" + SDK_VERSION + "\"")) {
      List<String> install = new ArrayList<>();
      install.addAll(
          List.of("npm", "install", "--no-audit", "--no-fund", "--omit=optional", "--no-save"));
      install.add("@lancedb/lancedb@" + SDK_VERSION);
      install.add("@lancedb/lancedb-" + platform + "@" + SDK_VERSION);
      install.add("apache-arrow@" + ARROW_VERSION);
      Output out;
      try {
        out = exec(dir, install, 600);
      } catch (IOException e) {
        out = Assumptions.abort("npm is not installed: " + e.getMessage());
      }
      String failure = out.err;
      Assumptions.assumeTrue(
          out.exit == 0, () -> "npm could not install the LanceDB Node SDK:\n" + failure);
    }
    home = dir;
    return dir;
  }

  /** The SDK's name for this platform's binary package, or null if it ships none. */
  private static String platform() {
    String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
    boolean arm = arch.equals("aarch64") || arch.equals("arm64");
    boolean x64 = arch.equals("amd64") || arch.equals("x86_64");
    if (os.contains("linux") && (arm || x64)) {
      return "linux-" + (arm ? "arm64" : "x64") + "-gnu";
    }
    if (os.contains("mac") && arm) {
      return "darwin-arm64";
    }
    return null;
  }

  private record Output(int exit, String out, String err) {}

  private static Output exec(Path dir, List<String> command, long timeoutSeconds) throws Exception {
    Path out = Files.createTempFile("lancedb-node", ".out");
    Path err = Files.createTempFile("lancedb-node", ".err");
    try {
      Process process =
          new ProcessBuilder(command)
              .directory(dir.toFile())
              .redirectOutput(out.toFile())
              .redirectError(err.toFile())
              .start();
      if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new AssertionError(String.join(" ", command) + " took over " + timeoutSeconds + " s");
      }
      return new Output(
          process.exitValue(),
          Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }
}
