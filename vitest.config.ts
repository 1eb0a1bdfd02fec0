import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
// With an extension: Vite's config loader warns about one without (it resolves .js to the .ts file).
import { integrationWorkers } from './test/setup/workerSlots.js';

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
// run first, in parallel, without the global setup. Integration: every other `*.test.ts`, against the one
// private stack of the run (test/setup/stack.ts), PAU_TEST_INTEGRATION_WORKERS files at once (default 3), each
// worker slot on a namespace, database, mock server, model ports and state dir of its own (test/setup/workerSlots.ts).
// `npm test` runs all; `npm run test:pure` the first.
const PURE = 'test/**/*.pure.test.ts';

const integration = {
  // One real Temporal dev server and one real Postgres for the whole run, on free ports; the setup file points each
  // test file at its worker slot before the file loads.
  globalSetup: ['test/setup/stack.ts'],
  setupFiles: ['test/setup/useWorkerSlot.ts'],
  pool: 'forks',
} satisfies { globalSetup: string[]; setupFiles: string[]; pool: 'forks' };

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
          ...integration,
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [PURE],
          // The last group, so test/training/pytest.test.ts, sorted last, waits for the background pytest last.
          maxWorkers: integrationWorkers(),
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
