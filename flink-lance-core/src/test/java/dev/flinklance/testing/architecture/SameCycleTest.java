package dev.flinklance.testing.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SameCycleTest {
  private static final String PATH =
      "Cycle detected: Slice compactor.lineage -> \n"
          + "                Slice compactor.sidefile -> \n"
          + "                Slice compactor.lineage\n";

  private static String cycle(String path, String dependency) {
    return path
        + "  1. Dependencies of Slice compactor.lineage\n"
        + "    - "
        + dependency
        + "\n"
        + "  2. Dependencies of Slice compactor.sidefile\n"
        + "    - Method <a.B.c()> calls method <d.E.f()> in (B.java:85)";
  }

  @Test
  void aFrozenCycleStaysKnownWhenItsDependenciesChange() {
    assertThat(
            new SameCycle()
                .matches(
                    cycle(PATH, "Method <a.C.d()> calls method <e.F.g()> in (C.java:12)"),
                    cycle(PATH, "Field <a.C.x> has type <e.F> in (C.java:0)")))
        .isTrue();
  }

  @Test
  void aCycleThroughOtherPackagesIsNew() {
    String longer =
        "Cycle detected: Slice compactor.lineage -> \n"
            + "                Slice compactor.plan -> \n"
            + "                Slice compactor.sidefile -> \n"
            + "                Slice compactor.lineage\n";
    String dependency = "Field <a.C.x> has type <e.F> in (C.java:0)";
    assertThat(new SameCycle().matches(cycle(longer, dependency), cycle(PATH, dependency)))
        .isFalse();
  }
}
