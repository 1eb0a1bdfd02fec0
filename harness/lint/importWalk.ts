// The files one piece of work reaches at run time: from some root modules, every import that is not
// type-only (types are erased), not a Node built-in and not in node_modules (also where a worktree links it
// to another checkout's, `../main/node_modules/...`). One episode is counted this way (episodeClosure.ts);
// what a single file brings is the files reached only through it. Pure: the modules in, the sets out.

import type { CruisedModule } from './folderCycles';

export type ImportGraph = ReadonlyMap<string, readonly string[]>;

/** Each module's run-time imports of project files. */
export function runtimeGraph(modules: readonly CruisedModule[]): ImportGraph {
  const graph = new Map<string, string[]>();
  for (const m of modules) {
    const deps = m.dependencies.filter(
      (d) => !d.coreModule && !d.couldNotResolve && !d.resolved.split('/').includes('node_modules') && !(d.dependencyTypes ?? []).includes('type-only'),
    );
    graph.set(
      m.source,
      deps.map((d) => d.resolved),
    );
  }
  return graph;
}

/** Every file reached from the roots; a file in `skip` is neither counted nor walked through. */
export function reached(graph: ImportGraph, roots: readonly string[], skip: ReadonlySet<string> = new Set()): Set<string> {
  const seen = new Set<string>();
  const todo = roots.filter((r) => !skip.has(r));
  for (let f = todo.pop(); f !== undefined; f = todo.pop()) {
    if (seen.has(f)) continue;
    seen.add(f);
    for (const d of graph.get(f) ?? []) if (!seen.has(d) && !skip.has(d)) todo.push(d);
  }
  return seen;
}

/** Per reached file, how many files the walk would lose without it (itself included), largest first. */
export function soleContributions(graph: ImportGraph, roots: readonly string[]): { file: string; files: number }[] {
  const all = reached(graph, roots);
  return [...all]
    .map((file) => ({ file, files: all.size - reached(graph, roots, new Set([file])).size }))
    .sort((a, b) => b.files - a.files || a.file.localeCompare(b.file));
}

/** Files per top-level folder. */
export function perFolder(files: Iterable<string>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const f of files) {
    const folder = f.includes('/') ? f.slice(0, f.indexOf('/')) : '.';
    out[folder] = (out[folder] ?? 0) + 1;
  }
  return out;
}
