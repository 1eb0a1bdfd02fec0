// `npm run walk:episode [-- --list]`: how many files one episode reaches at run time (counted the same way
// since 2026-12-01): the episode and judge workflows and the activity modules they call, and
// every file they import that is not type-only. Prints the count per folder, its ceiling (episodeClosure.ts,
// checked by lint:deps) and what brings the most (the files reached only through it). Reads
// dependency-cruiser's JSON on stdin, like lint:deps.
import fs from 'node:fs';
import { z } from 'zod';
import type { CruisedModule } from './folderCycles';
import { EPISODE_FILE_CEILING, EPISODE_ROOTS, episodeClosure } from './episodeClosure';
import { perFolder, runtimeGraph, soleContributions } from './importWalk';

/** What the walk reads of dependency-cruiser's JSON (harness/lint/folderCycles.ts, CruisedModule). */
const cruiseSchema = z.object({
  modules: z.array(
    z.object({
      source: z.string(),
      dependencies: z.array(
        z.object({
          resolved: z.string(),
          coreModule: z.boolean().optional(),
          couldNotResolve: z.boolean().optional(),
          dependencyTypes: z.array(z.string()).optional(),
        }),
      ),
    }),
  ),
});

function main(): number {
  let modules: CruisedModule[];
  try {
    modules = cruiseSchema.parse(JSON.parse(fs.readFileSync(0, 'utf8'))).modules;
  } catch {
    console.error('walk:episode: dependency-cruiser gave no JSON result on stdin; run it alone to see why');
    return 2;
  }
  const { files, missing } = episodeClosure(modules);
  if (missing.length > 0) {
    console.error(`walk:episode: roots not in the cruise: ${missing.join(', ')} (moved? update EPISODE_ROOTS)`);
    return 2;
  }
  const graph = runtimeGraph(modules);
  const folders = Object.entries(perFolder(files)).sort((a, b) => b[1] - a[1]);
  console.log(`one episode reaches ${files.size} files (ceiling ${EPISODE_FILE_CEILING}): ${folders.map(([f, n]) => `${f} ${n}`).join(', ')}`);
  console.log('what brings the most (files reached only through it, itself included):');
  for (const { file, files: n } of soleContributions(graph, EPISODE_ROOTS).slice(0, 12)) console.log(`  ${String(n).padStart(3)}  ${file}`);
  if (process.argv.includes('--list')) for (const f of [...files].sort()) console.log(f);
  return 0;
}

process.exitCode = main();
