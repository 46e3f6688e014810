package dev.flinklance.cdc.testing;

import dev.flinklance.testing.Repository;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The program arguments of docs/cdc.md's {@code flink run} command, as a shell splits them. */
public final class DocCommand {
  private static final Pattern BASH_BLOCK = Pattern.compile("```bash\\n(.*?)```", Pattern.DOTALL);

  private DocCommand() {}

  /** The arguments after the jar of the page's {@code LanceCdcSyncJob} command. */
  public static List<String> cdcSyncArguments() throws IOException {
    String page = Files.readString(Repository.root().resolve("docs/cdc.md"));
    Matcher block = BASH_BLOCK.matcher(page);
    while (block.find()) {
      if (block.group(1).contains("dev.flinklance.cdc.LanceCdcSyncJob")) {
        List<String> words = words(block.group(1).replace("\\\n", " "));
        int jar = 0;
        while (!words.get(jar).endsWith(".jar")) {
          jar++;
        }
        return words.subList(jar + 1, words.size());
      }
    }
    throw new AssertionError("docs/cdc.md has no ```bash block running LanceCdcSyncJob");
  }

  /** Words split at blanks, single quotes kept together and removed. */
  private static List<String> words(String line) {
    List<String> words = new ArrayList<>();
    StringBuilder word = new StringBuilder();
    boolean quoted = false;
    boolean inWord = false;
    for (char c : line.toCharArray()) {
      if (c == '\'') {
        quoted = !quoted;
        inWord = true;
      } else if (!quoted && Character.isWhitespace(c)) {
        if (inWord) {
          words.add(word.toString());
          word.setLength(0);
          inWord = false;
        }
      } else {
        word.append(c);
        inWord = true;
      }
    }
    if (inWord) {
      words.add(word.toString());
    }
    return words;
  }
}
