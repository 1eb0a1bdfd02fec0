import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// Vitest's own order (failed files first, then the longest by the last run's times, then the largest), except that
// the file that waits for a background job comes last: test/training/pytest.test.ts asserts on the trainer pytest
// the global setup started (test/setup/trainerPytest.ts), so every other file runs while pytest does.
const LAST = ['test/training/pytest.test.ts'];
class BackgroundLastSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const isLast = (f: TestSpecification) => LAST.some((l) => f.moduleId.replaceAll('\\', '/').endsWith(l));
    return [...sorted.filter((f) => !isLast(f)), ...sorted.filter(isLast)];
  }
}

// Two tiers (docs/testing.md). `pure`: files named `*.pure.test.ts`, which need no stack, start no process and
// load no model (the rule in .dependency-cruiser.pure.cjs checks what they import); they
// run first, in parallel, without the global setup. `integration`: every other `*.test.ts`, against the one
// private stack of the run, one file at a time. `npm test` runs both; `npm run test:pure` only the first.
const PURE = 'test/**/*.pure.test.ts';

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default', './test/setup/summaryReporter.ts'],
    sequence: { sequencer: BackgroundLastSequencer },
    projects: [
      {
        extends: true,
        test: {
          name: 'pure',
          include: [PURE],
          // Threads that keep their loaded modules from file to file: the tier runs in seconds (a fresh process
          // per file costs more than the tests). So a pure test leaves process-wide state as it found it.
          pool: 'threads',
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [PURE],
          // One real Temporal dev server and one real Postgres for the whole run, on free ports.
          globalSetup: ['test/setup/stack.ts'],
          // One file at a time: every file's workers poll the same task queues on the one test server, so two
          // files in parallel could run each other's tasks (and fault-injecting tests would count the wrong
          // activities). Two cores gain little from parallel files anyway.
          fileParallelism: false,
          pool: 'forks',
        },
      },
    ],
  },
});
