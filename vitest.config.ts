import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One real Temporal dev server and one real Postgres for the whole run, on free ports.
    globalSetup: ['test/setup/stack.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Two cores: files run two at a time at most, so servers and sandboxes are not starved.
    maxWorkers: 2,
    reporters: ['default', './test/setup/summaryReporter.ts'],
  },
});
