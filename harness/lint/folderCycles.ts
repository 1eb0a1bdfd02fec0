// Folder-level cycles in a dependency-cruiser result: the top-level folders (domain, config, db, platform,
// activities, workflows, workers, scripts, harness, test) must form a one-way house, and so must the concept
// folders inside domain/ (domain/judge, domain/calibration, ...). Module-level cycle rules miss a cycle
// between folders that no single chain of modules closes (`config ↔ domain` held up by type imports alone),
// so every edge counts here, type-only ones included. Pure: the modules in, the cycles out.

/** The part of a dependency-cruiser module the lint scripts read (this check, and importWalk.ts's run-time walk). */
export interface CruisedModule {
  source: string;
  /** `dependencyTypes` holds `type-only` for an import erased at run time (the walk skips those; this check does not). */
  dependencies: { resolved: string; coreModule?: boolean; couldNotResolve?: boolean; dependencyTypes?: string[] }[];
}

/** One folder-level edge and the first module import that makes it (so the fix can be found). */
export interface FolderEdge {
  from: string;
  to: string;
  example: { from: string; to: string };
}

/** The folder a module path belongs to, for one level of the check; null: not in any folder of that level. */
export type FolderOf = (path: string) => string | null;

/** The top-level folder (`domain/llm/x.ts` → `domain`); null for a file at the root and for node_modules. */
export const topFolder: FolderOf = (p) => {
  const i = p.indexOf('/');
  const f = i > 0 ? p.slice(0, i) : null;
  return f === 'node_modules' ? null : f;
};

/** The concept folder inside domain/ (`domain/llm/x.ts` → `domain/llm`); null outside domain/ and for a file directly in it. */
export const domainConcept: FolderOf = (p) => {
  const m = /^domain\/([^/]+)\//.exec(p);
  return m ? `domain/${m[1]}` : null;
};

export function folderEdges(modules: CruisedModule[], folderOf: FolderOf = topFolder): FolderEdge[] {
  const edges = new Map<string, FolderEdge>();
  for (const m of modules) {
    const a = folderOf(m.source);
    if (a === null) continue;
    for (const d of m.dependencies) {
      if (d.coreModule || d.couldNotResolve) continue;
      const b = folderOf(d.resolved);
      if (b === null || b === a) continue;
      const key = `${a}\n${b}`;
      if (!edges.has(key)) edges.set(key, { from: a, to: b, example: { from: m.source, to: d.resolved } });
    }
  }
  return [...edges.values()];
}

/** The strongly connected groups of two or more folders (Tarjan), each with the edges inside it. */
export function folderCycles(modules: CruisedModule[], folderOf: FolderOf = topFolder): { folders: string[]; edges: FolderEdge[] }[] {
  const edges = folderEdges(modules, folderOf);
  const out = new Map<string, string[]>();
  for (const e of edges) out.set(e.from, [...(out.get(e.from) ?? []), e.to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v) as number);
    stack.push(v);
    onStack.add(v);
    for (const w of out.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string | undefined;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) groups.push(group.sort());
    }
  };
  for (const v of [...new Set(edges.flatMap((e) => [e.from, e.to]))].sort()) if (!index.has(v)) visit(v);
  return groups.map((folders) => ({ folders, edges: edges.filter((e) => folders.includes(e.from) && folders.includes(e.to)) }));
}
