// The folder-cycle check of `npm run lint:deps` (harness/lint/folderCycles.ts): a cycle between top-level
// folders is found even when only type imports close it and no module-level cycle exists; a one-way house
// passes; Node built-ins, node_modules and files at the root are not folders. The same check over the concept
// folders inside domain/ finds a cycle between two concepts that the top-level check cannot see.
import { describe, expect, it } from 'vitest';
import { type CruisedModule, domainConcept, folderCycles, folderEdges } from '../../harness/lint/folderCycles';

const mod = (source: string, ...deps: string[]): CruisedModule => ({ source, dependencies: deps.map((resolved) => ({ resolved })) });

describe('folderCycles', () => {
  it('finds config ↔ domain closed by a type import that forms no module-level cycle', () => {
    const modules = [
      mod('config/models.ts', 'domain/llm/localModels.ts', 'node_modules/zod/index.js'),
      mod('domain/llm/localModels.ts'),
      mod('domain/bench/types.ts', 'config/models.ts'),
    ];
    const cycles = folderCycles(modules);
    expect(cycles.map((c) => c.folders)).toEqual([['config', 'domain']]);
    expect(cycles[0]?.edges.map((e) => `${e.example.from} → ${e.example.to}`).sort()).toEqual([
      'config/models.ts → domain/llm/localModels.ts',
      'domain/bench/types.ts → config/models.ts',
    ]);
  });

  it('finds a three-folder cycle as one group and passes a one-way house', () => {
    const cyclic = [mod('a/x.ts', 'b/y.ts'), mod('b/y.ts', 'c/z.ts'), mod('c/z.ts', 'a/w.ts'), mod('a/w.ts'), mod('d/v.ts', 'a/x.ts')];
    expect(folderCycles(cyclic).map((c) => c.folders)).toEqual([['a', 'b', 'c']]);
    const oneWay = [
      mod('scripts/pau.ts', 'activities/x.ts', 'domain/t.ts'),
      mod('activities/x.ts', 'domain/t.ts', 'config/env.ts'),
      mod('config/env.ts', 'domain/t.ts'),
    ];
    expect(folderCycles(oneWay)).toEqual([]);
  });

  it('ignores built-ins, node_modules, unresolved imports and imports inside one folder', () => {
    const modules: CruisedModule[] = [
      {
        source: 'domain/a.ts',
        dependencies: [{ resolved: 'fs', coreModule: true }, { resolved: 'domain/b.ts' }, { resolved: 'nowhere/x', couldNotResolve: true }],
      },
      mod('node_modules/zod/index.js', 'domain/a.ts'),
      mod('vitest.config.ts', 'domain/a.ts'),
    ];
    expect(folderEdges(modules)).toEqual([]);
  });

  it('finds a cycle between two domain/ concepts, which is no top-level cycle, and passes once a leaf holds the shared piece', () => {
    const cyclic = [
      mod('domain/judge/cardSummary.ts', 'domain/calibration/ladder.ts'),
      mod('domain/calibration/ladder.ts', 'domain/judge/cardRungs.ts', 'domain/common/recordOf.ts'),
      mod('domain/judge/cardRungs.ts'),
      mod('activities/judge/card.ts', 'domain/judge/cardSummary.ts'),
    ];
    expect(folderCycles(cyclic)).toEqual([]);
    const cycles = folderCycles(cyclic, domainConcept);
    expect(cycles.map((c) => c.folders)).toEqual([['domain/calibration', 'domain/judge']]);
    expect(cycles[0]?.edges.map((e) => `${e.example.from} → ${e.example.to}`).sort()).toEqual([
      'domain/calibration/ladder.ts → domain/judge/cardRungs.ts',
      'domain/judge/cardSummary.ts → domain/calibration/ladder.ts',
    ]);
    const leaf = [
      mod('domain/judge/cardSummary.ts', 'domain/stats/kendallTau.ts'),
      mod('domain/calibration/ladder.ts', 'domain/judge/cardRungs.ts', 'domain/stats/kendallTau.ts'),
      mod('domain/stats/kendallTau.ts'),
    ];
    expect(folderCycles(leaf, domainConcept)).toEqual([]);
  });

  it('names domain/ concepts only: files outside domain/ or directly in it belong to none', () => {
    expect(domainConcept('domain/llm/x.ts')).toBe('domain/llm');
    expect(domainConcept('domain/x.ts')).toBeNull();
    expect(domainConcept('activities/llm/x.ts')).toBeNull();
    expect(domainConcept('node_modules/zod/index.js')).toBeNull();
  });
});
