// The layering rules, checked by `npm test` (`npm run lint:deps`); the floors, bottom up: domain, config, db,
// platform, activities, workflows, workers, scripts (the CLI), harness, with test/ beside them
// (docs/architecture.md). Every top-level folder is under a rule here; harness/lint/folderCycles.ts adds
// that no two folders import each other, type imports included. Type-only imports are erased at run time, so
// the workflow rule lets workflows import activity *types* from anywhere.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'workflow-runtime-imports',
      comment:
        'Workflow code runs in the deterministic sandbox: at run time it imports only domain/, other workflow files, ' +
        '@temporalio/workflow and @temporalio/common (activities are reached through proxies, by type).',
      severity: 'error',
      from: { path: '^workflows/' },
      to: {
        dependencyTypesNot: ['type-only'],
        pathNot: ['^workflows/', '^domain/', '^node_modules/@temporalio/(workflow|common)/'],
      },
    },
    {
      name: 'domain-is-pure',
      comment:
        'domain/ is pure and workflow-safe: no I/O, no Node built-ins, no db/openai/activity runtime code; its packages are ' +
        'zod, @temporalio/common and @noble/hashes (pure JavaScript SHA-256).',
      severity: 'error',
      from: { path: '^domain/' },
      to: {
        dependencyTypesNot: ['type-only'],
        pathNot: ['^domain/', '^node_modules/(zod|@temporalio/common|@noble/hashes)/'],
      },
    },
    {
      name: 'domain-imports-no-outer-layer',
      comment: 'Not even types: domain/ is the bottom floor and knows nothing of any other folder.',
      severity: 'error',
      from: { path: '^domain/' },
      to: { path: '^(config|db|platform|activities|workflows|workers|scripts|harness|test)/' },
    },
    {
      name: 'config-imports-only-domain',
      comment: 'config/ (settings, the model registry, service addresses) stands on domain/ alone: not even types from above.',
      severity: 'error',
      from: { path: '^config/' },
      to: { path: '^(db|platform|activities|workflows|workers|scripts|harness|test)/' },
    },
    {
      name: 'db-imports-only-config-and-domain',
      comment: 'db/ (schema, client, migrations) is storage: it knows domain/ types and config/, nothing above.',
      severity: 'error',
      from: { path: '^db/' },
      to: { path: '^(platform|activities|workflows|workers|scripts|harness|test)/' },
    },
    {
      name: 'platform-is-infrastructure',
      comment:
        'platform/ is infrastructure that is not Temporal (processes, local models, the local stack, the blob store): ' +
        'it knows nothing of the Temporal edge, the workflows, the CLI, the harnesses, the workers or the tests.',
      severity: 'error',
      from: { path: '^platform/' },
      to: { path: '^(activities|workflows|scripts|harness|workers|test)/' },
    },
    {
      name: 'activities-not-scripts',
      comment: 'The I/O edge does not depend on the CLI or on the workers that host it.',
      severity: 'error',
      from: { path: '^activities/' },
      to: { path: '^(scripts|workers)/' },
    },
    {
      name: 'activities-not-workflows',
      comment: 'Activities are the I/O edge a workflow calls; at run time they never load workflow code (types are fine).',
      severity: 'error',
      from: { path: '^activities/' },
      to: { path: '^workflows/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'workers-not-cli',
      comment: 'A worker hosts activities and workflows; it does not depend on the CLI.',
      severity: 'error',
      from: { path: '^workers/' },
      to: { path: '^scripts/' },
    },
    {
      name: 'nothing-imports-harness',
      comment: 'harness/ (benchmarks, chaos runs, the GPU check, lint helpers) is the top floor: only harness/ and its tests import it.',
      severity: 'error',
      from: { pathNot: '^(harness|test)/' },
      to: { path: '^harness/' },
    },
    {
      name: 'cli-not-activities',
      comment:
        'The CLI (scripts/) never runs an activity: it reads through db/ (db/queries/), starts workflows, and uses ' +
        'platform/ for processes, the stack and the report producer (platform/report/, which the produceReport ' +
        'activity wraps). Types are fine.',
      severity: 'error',
      from: { path: '^scripts/' },
      to: { path: '^activities/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'tables-from-their-file',
      comment:
        'A table is imported from its domain file (db/schema/<domain>.ts); the barrel db/schema/index.ts exists for ' +
        'drizzle-kit, so loading one table does not load every table (an episode reached all ten files through it).',
      severity: 'error',
      from: { pathNot: '^db/drizzle\\.config\\.ts$' },
      to: { path: '^db/schema/index\\.ts$' },
    },
    {
      name: 'nothing-imports-tests',
      severity: 'error',
      from: { pathNot: '^test/' },
      to: { path: '^test/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    // Worktrees link node_modules to the main checkout's: keep the link's path so the node_modules rules match.
    preserveSymlinks: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(node_modules|shared|\\.data|\\.venv|\\.tools)/' },
  },
};
