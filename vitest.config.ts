import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One real Temporal dev server and one real Postgres for the whole run, on free ports.
    globalSetup: ['test/setup/stack.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // One file at a time: every file's workers poll the same task queues on the one test server, so two
    // files in parallel could run each other's tasks (and fault-injecting tests would count the wrong
    // activities). Two cores gain little from parallel files anyway.
    fileParallelism: false,
    reporters: ['default', './test/setup/summaryReporter.ts'],
  },
});
