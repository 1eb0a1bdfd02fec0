// The layering rules, checked by `npm test` (`npm run lint:deps`). Type-only imports are erased at run
// time, so the workflow rule lets workflows import activity *types* from anywhere.
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
      comment: 'domain/ is pure and workflow-safe: no I/O, no Node built-ins, no db/openai/activity runtime code.',
      severity: 'error',
      from: { path: '^domain/' },
      to: {
        dependencyTypesNot: ['type-only'],
        pathNot: ['^domain/', '^node_modules/(zod|@temporalio/common)/'],
      },
    },
    {
      name: 'domain-imports-no-outer-layer',
      comment: 'Not even types: domain/ knows nothing of activities, workflows, workers, scripts, db or tests.',
      severity: 'error',
      from: { path: '^domain/' },
      to: { path: '^(activities|platform|workflows|workers|scripts|db|test)/' },
    },
    {
      name: 'activities-not-scripts',
      comment: 'The I/O edge does not depend on the CLI.',
      severity: 'error',
      from: { path: '^activities/' },
      to: { path: '^scripts/' },
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
