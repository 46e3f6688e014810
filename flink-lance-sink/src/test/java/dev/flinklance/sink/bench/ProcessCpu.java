package dev.flinklance.sink.bench;

import java.lang.management.ManagementFactory;

/**
 * The JVM's CPU time so far, every thread's (Flink's, Lance's native ones, ours): what a job costs
 * the machine's cores, against its wall time, which only says how long it took.
 */
final class ProcessCpu {
  private static final com.sun.management.OperatingSystemMXBean OS =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  private ProcessCpu() {}

  /** Nanoseconds of CPU this process has used, or -1 where the JVM cannot tell. */
  static long sofar() {
    return OS.getProcessCpuTime();
  }
}
