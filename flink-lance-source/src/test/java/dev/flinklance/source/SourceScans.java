package dev.flinklance.source;

/**
 * The scan a source built by {@link LanceSourceBuilder} reads: what the enumerator, the planners
 * and the readers take, resolved and checked as a job's source resolves it.
 */
public final class SourceScans {

  private SourceScans() {}

  public static LanceScan of(LanceSourceBuilder builder) {
    return builder.build().scan();
  }
}
