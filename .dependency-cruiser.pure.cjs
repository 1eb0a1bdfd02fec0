// The pure test tier's rule, checked by `npm run lint:deps` beside .dependency-cruiser.cjs. A separate run
// because it is about run time: type-only imports are erased, so this one does not follow them (the layer
// rules in .dependency-cruiser.cjs do).
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'pure-tests-need-no-stack',
      comment:
        'A *.pure.test.ts file runs without the global setup, in parallel with the others (vitest.config.ts): at run ' +
        'time it reaches, directly or through what it imports, nothing that talks to the stack, starts a process or ' +
        'opens a socket. Name it *.test.ts (the integration tier) when it needs any of that (docs/testing.md).',
      severity: 'error',
      from: { path: '\\.pure\\.test\\.ts$' },
      to: {
        reachable: true,
        path: [
          '^(activities|workers|workflows)/',
          '^db/client',
          '^scripts/stack/',
          '^test/(setup|helpers)/',
          '^(node:)?(child_process|cluster|net|http|https|http2|dgram|worker_threads)$',
          '^node_modules/(pg|openai|@temporalio/(client|worker|testing|activity))/',
        ],
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: false,
    preserveSymlinks: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(node_modules|shared|\\.data|\\.venv|\\.tools)/' },
  },
};
