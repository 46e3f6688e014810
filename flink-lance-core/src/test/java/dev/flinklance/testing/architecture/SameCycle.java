package dev.flinklance.testing.architecture;

import com.tngtech.archunit.library.freeze.ViolationLineMatcher;

/**
 * A frozen package cycle is known by the packages it runs through, not by the dependencies that
 * make up its edges: work inside packages already in a cycle leaves it frozen, and a cycle through
 * other packages fails. ArchUnit's own matcher compares every dependency of the report.
 */
final class SameCycle implements ViolationLineMatcher {
  /** Where the report of a cycle's path ends and the list of its dependencies begins. */
  private static final String DEPENDENCIES = "\n  1. Dependencies of ";

  @Override
  public boolean matches(String violation, String stored) {
    return path(violation).equals(path(stored));
  }

  private static String path(String cycle) {
    int end = cycle.indexOf(DEPENDENCIES);
    return end < 0 ? cycle : cycle.substring(0, end);
  }
}
