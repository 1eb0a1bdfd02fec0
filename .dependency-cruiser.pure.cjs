// The rules that put each test file in its tier (vitest.config.ts, docs/testing.md), checked by `npm run lint:deps`
// beside .dependency-cruiser.cjs. A separate run because they are about run time: type-only imports are erased,
// so this one does not follow them (the layer rules in .dependency-cruiser.cjs do).

// What a pure test may not reach: what talks to the stack, starts a process or opens a socket.
const STACK = [
  '^(activities|workers|workflows)/',
  '^db/client',
  '^platform/(process|models|stack|storage)/',
  '^test/(setup|helpers)/',
  '^(node:)?(child_process|cluster|net|http|https|http2|dgram|worker_threads)$',
  '^node_modules/(pg|openai|@temporalio/(client|worker|testing|activity))/',
];

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
      to: { reachable: true, path: STACK },
    },
  ],
  required: [
    {
      name: 'integration-tests-need-the-stack',
      comment:
        'A *.test.ts file that reaches nothing that talks to the stack, starts a process or opens a socket needs no ' +
        'stack: name it *.pure.test.ts, so that it runs in the pure tier, in seconds (docs/testing.md).',
      severity: 'error',
      module: { path: '^test/.*\\.test\\.ts$', pathNot: '\\.pure\\.test\\.ts$' },
      to: { path: STACK, reachable: true },
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
