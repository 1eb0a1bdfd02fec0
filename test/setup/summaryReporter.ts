// Ends a test run with one plain line, `tests: N passed, N failed, N skipped`, that any CI can read.
// A failure outside a test counts as one failed too, so the line never reads "0 failed" for a run that failed:
// a file that did not load, a file or suite whose beforeAll/afterAll failed (its tests show as skipped or
// passed), an error thrown outside any test, a global setup that failed. Each is named on a line above.
import path from 'node:path';
import type { Reporter, SerializedError, TestModule, TestRunEndReason, TestSuite } from 'vitest/node';

interface RunCounts {
  passed: number;
  failed: number;
  skipped: number;
  /** What failed outside a test, one line each (counted in `failed`). */
  outside: string[];
}

const firstLine = (e: SerializedError | undefined) => (e?.message ?? String(e?.name ?? 'unknown error')).split('\n')[0];

/** The errors of a module or suite's own (load, hooks), then of the suites inside it. */
function ownErrors(entity: TestModule | TestSuite): SerializedError[] {
  return [...entity.errors(), ...[...entity.children.allSuites()].flatMap((s) => s.errors())];
}

function countRun(
  testModules: ReadonlyArray<TestModule>,
  unhandledErrors: ReadonlyArray<SerializedError>,
  reason: TestRunEndReason,
  root = process.cwd(),
): RunCounts {
  const counts: RunCounts = { passed: 0, failed: 0, skipped: 0, outside: [] };
  for (const mod of testModules) {
    let failedTests = 0;
    for (const test of mod.children.allTests()) {
      const state = test.result().state;
      if (state === 'passed') counts.passed += 1;
      else if (state === 'failed') failedTests += 1;
      else counts.skipped += 1;
    }
    counts.failed += failedTests;
    // A file that failed though none of its tests did: it failed to load, or a hook failed.
    if (mod.state() === 'failed' && failedTests === 0) {
      counts.outside.push(`${path.relative(root, mod.moduleId)}: ${firstLine(ownErrors(mod)[0])}`);
    }
  }
  for (const e of unhandledErrors) counts.outside.push(`error outside any test: ${firstLine(e)}`);
  // A run that failed with nothing counted (a global setup that threw, say) must not read "0 failed" either.
  if (reason === 'failed' && counts.failed === 0 && counts.outside.length === 0) counts.outside.push('the run failed before or after its tests (see above)');
  counts.failed += counts.outside.length;
  return counts;
}

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>, reason: TestRunEndReason): void {
    const c = countRun(testModules, unhandledErrors, reason);
    const outside = c.outside.map((line) => `failed outside a test: ${line}\n`).join('');
    process.stdout.write(`\n${outside}tests: ${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped\n`);
  }
}
