import type { Reporter, SerializedError, TestModule, TestRunEndReason } from "vitest/node";

/**
 * Prints the run's last line, `N passed, N failed[, N skipped]`. A file that fails to load or whose hooks
 * fail counts as one failure even when none of its tests ran, and so does every unhandled error and a run
 * that failed before any file ran (a failing global setup).
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>,
    reason: TestRunEndReason,
  ): void {
    const counts = summarize(testModules, unhandledErrors.length, reason);
    process.stdout.write(`\n${formatSummary(counts)}\n`);
  }
}

export interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}

export function summarize(
  testModules: ReadonlyArray<TestModule>,
  unhandledErrors: number,
  reason: TestRunEndReason,
): Counts {
  const counts: Counts = { passed: 0, failed: 0, skipped: 0 };
  for (const module of testModules) {
    let failedTests = 0;
    for (const test of module.children.allTests()) {
      const state = test.result().state;
      if (state === "passed") counts.passed++;
      else if (state === "failed") failedTests++;
      else counts.skipped++;
    }
    counts.failed += failedTests;
    if (failedTests === 0 && (module.state() === "failed" || module.errors().length > 0)) counts.failed++;
  }
  counts.failed += unhandledErrors;
  if (reason !== "passed" && counts.failed === 0) counts.failed = 1;
  return counts;
}

export function formatSummary({ passed, failed, skipped }: Counts): string {
  return `${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`;
}
