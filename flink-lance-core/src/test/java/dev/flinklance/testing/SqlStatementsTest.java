package dev.flinklance.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flinklance.testing.SqlStatements.Statement;
import org.junit.jupiter.api.Test;

class SqlStatementsTest {

  @Test
  void splitsAtSemicolonsOutsideLiteralsIdentifiersAndComments() {
    String text =
        "-- a comment; not a statement\n"
            + "USE CATALOG lake; CREATE DATABASE db;   -- trailing comment; ignored\n"
            + "SELECT 'a;b', 'it''s', `odd;name` FROM t /*+ OPTIONS('k' = 'v;w') */\n"
            + "  WHERE x = 1;\n"
            + "\n"
            + "CALL lake.sys.compact('db.t');";
    assertThat(SqlStatements.split(text))
        .containsExactly(
            new Statement("USE CATALOG lake", 2),
            new Statement("CREATE DATABASE db", 2),
            new Statement(
                "SELECT 'a;b', 'it''s', `odd;name` FROM t /*+ OPTIONS('k' = 'v;w') */\n"
                    + "  WHERE x = 1",
                3),
            new Statement("CALL lake.sys.compact('db.t')", 6));
  }

  @Test
  void textAfterTheLastStatementOrUnterminatedQuotesAreErrors() {
    assertThatThrownBy(() -> SqlStatements.split("SELECT 1;\nSELECT 2\n"))
        .hasMessage("line 2: statement without a ';' at its end: SELECT 2");
    assertThatThrownBy(() -> SqlStatements.split("SELECT 'x;\n"))
        .hasMessage("line 1: unterminated '...'");
    assertThatThrownBy(() -> SqlStatements.split("SELECT 1 /* x;\n"))
        .hasMessage("line 1: unterminated comment");
    assertThat(SqlStatements.split("-- only a comment\n\n")).isEmpty();
  }
}
