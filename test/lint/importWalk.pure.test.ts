// The import walk behind `npm run walk:episode` (harness/lint/importWalk.ts): type-only imports, Node
// built-ins and node_modules are not walked; a file's sole contribution is what only it brings.
import { describe, expect, it } from 'vitest';
import type { CruisedModule } from '../../harness/lint/folderCycles';
import { perFolder, reached, runtimeGraph, soleContributions } from '../../harness/lint/importWalk';
import { EPISODE_ROOTS, episodeClosureProblem } from '../../harness/lint/episodeClosure';

const mod = (source: string, ...deps: (string | [string, string])[]): CruisedModule => ({
  source,
  dependencies: deps.map((d) => (typeof d === 'string' ? { resolved: d, dependencyTypes: ['local'] } : { resolved: d[0], dependencyTypes: ['local', d[1]] })),
});

const modules = [
  mod(
    'activities/turn.ts',
    'activities/chat.ts',
    'domain/prompt.ts',
    ['config/models.ts', 'type-only'],
    'node_modules/openai/index.js',
    // A worktree whose node_modules links to another checkout's.
    '../main/node_modules/zod/index.cjs',
  ),
  mod('activities/chat.ts', 'platform/local.ts', 'domain/hash.ts'),
  mod('platform/local.ts', 'platform/process.ts', 'domain/hash.ts'),
  mod('platform/process.ts'),
  mod('domain/prompt.ts', 'domain/hash.ts'),
  mod('domain/hash.ts'),
  mod('config/models.ts', 'domain/hash.ts'),
  { source: 'platform/process.ts', dependencies: [{ resolved: 'fs', coreModule: true }] },
];

describe('importWalk', () => {
  it('walks run-time imports only: no type-only import, built-in or node_modules file', () => {
    const files = reached(runtimeGraph(modules), ['activities/turn.ts']);
    expect([...files].sort()).toEqual([
      'activities/chat.ts',
      'activities/turn.ts',
      'domain/hash.ts',
      'domain/prompt.ts',
      'platform/local.ts',
      'platform/process.ts',
    ]);
    expect(perFolder(files)).toEqual({ activities: 2, domain: 2, platform: 2 });
  });

  it('credits a file with what is reached only through it, not with what others reach too', () => {
    const graph = runtimeGraph(modules);
    const by = Object.fromEntries(soleContributions(graph, ['activities/turn.ts']).map((c) => [c.file, c.files]));
    // chat.ts brings itself and the two platform files; domain/hash.ts is also reached through prompt.ts.
    expect(by['activities/chat.ts']).toBe(3);
    expect(by['domain/hash.ts']).toBe(1);
    expect(by['activities/turn.ts']).toBe(6);
    expect(soleContributions(graph, ['activities/turn.ts'])[0]).toEqual({ file: 'activities/turn.ts', files: 6 });
  });

  it("fails the episode's closure above its ceiling, naming the count, and when a root is missing", () => {
    // Each root imports one shared file: the roots and it.
    const roots = EPISODE_ROOTS.map((r) => mod(r, 'domain/shared.ts'));
    const all = [...roots, mod('domain/shared.ts')];
    expect(episodeClosureProblem(all, EPISODE_ROOTS.length + 1)).toBeNull();
    expect(episodeClosureProblem(all, EPISODE_ROOTS.length)).toBe(
      `one episode reaches ${EPISODE_ROOTS.length + 1} project files, above its ceiling of ${EPISODE_ROOTS.length} (harness/lint/episodeClosure.ts); \`npm run walk:episode\` shows what brings the most`,
    );
    expect(episodeClosureProblem(all.slice(1), 100)).toMatch(/^roots not in the cruise: workflows\/episode\/episodeWorkflow\.ts \(moved\?/);
  });
});
