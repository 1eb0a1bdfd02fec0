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
      name: 'platform-is-infrastructure',
      comment:
        'platform/ is infrastructure that is not Temporal (processes, local models, the local stack, the blob store): ' +
        'it knows nothing of the Temporal edge, the workflows, the CLI, the harnesses, the workers or the tests.',
      severity: 'error',
      from: { path: '^platform/' },
      to: { path: '^(activities|workflows|scripts|harness|workers|test)/' },
    },
    {
      name: 'cli-not-activities',
      comment:
        'The CLI (scripts/) never runs an activity: it reads through db/ (db/queries/), starts workflows, and uses ' +
        'platform/ for processes and the stack. Types are fine. The exceptions are named, each with its way out: ' +
        'the sandbox pool (`pau sandbox`; it moves to platform/ with the sandbox pool work), the calibration ladder ' +
        '(`pau calibrate` sends its model calls itself) and the report writer (`pau report`; one produceReport(kind)).',
      severity: 'error',
      from: { path: '^scripts/' },
      to: {
        path: '^activities/',
        dependencyTypesNot: ['type-only'],
        pathNot: ['^activities/sandbox/index\\.ts$', '^activities/calibration/ladder\\.ts$', '^activities/report/(produceReport|writeReport)\\.ts$'],
      },
    },
    {
      name: 'activities-not-workflows',
      comment: 'Activities are the I/O edge a workflow calls; at run time they never load workflow code (types are fine).',
      severity: 'error',
      from: { path: '^activities/' },
      to: { path: '^workflows/', dependencyTypesNot: ['type-only'] },
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
