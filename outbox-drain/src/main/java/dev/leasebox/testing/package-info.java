/**
 * Tooling, not API: the hooks benchmarks, the chaos harness and tests use to reach inside a drain
 * ({@link dev.leasebox.testing.LeaseboxToolBuilder}) and to stop one as a crash would
 * ({@link dev.leasebox.testing.Crash}). An application needs none of it; it may change with any version.
 */
package dev.leasebox.testing;
