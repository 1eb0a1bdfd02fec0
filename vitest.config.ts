import { defineConfig } from 'vitest/config';

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
