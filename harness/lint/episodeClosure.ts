// What one episode loads at run time (importWalk.ts over dependency-cruiser's modules) and its ceiling:
// `npm run walk:episode` prints the count, `npm run lint:deps` (part of `npm test`) fails above the ceiling.
import type { CruisedModule } from './folderCycles';
import { reached, runtimeGraph } from './importWalk';

/** The episode's workflows, and the modules that build the activities they call on `pau` and `pau-sandbox`. */
export const EPISODE_ROOTS = [
  'workflows/episode/episodeWorkflow.ts',
  'workflows/judge/judgeEpisodeWorkflow.ts',
  'activities/episode/index.ts',
  'activities/judge/activities.ts',
  'activities/sandbox/index.ts',
] as const;

/**
 * The most project files an episode may reach: the count when the judge's formats became values and the
 * judge stopped loading the classifier's prompt, the card's rungs and the score detail's schema (2026-12-07:
 * 108), and the name setting (domain/episode/names.ts: 109). Lower it when the closure shrinks; a change that raises it says why in docs/architecture.md
 * ("Known debts").
 */
export const EPISODE_FILE_CEILING = 109;

/** The files one episode reaches; the roots missing from the cruise, if any (moved: update EPISODE_ROOTS). */
export function episodeClosure(modules: readonly CruisedModule[]): { files: Set<string>; missing: string[] } {
  const graph = runtimeGraph(modules);
  const missing = EPISODE_ROOTS.filter((r) => !graph.has(r));
  return { files: reached(graph, EPISODE_ROOTS), missing };
}

/** Why the closure fails its check (a root missing, or more files than the ceiling); null when it passes. */
export function episodeClosureProblem(modules: readonly CruisedModule[], ceiling = EPISODE_FILE_CEILING): string | null {
  const { files, missing } = episodeClosure(modules);
  if (missing.length > 0) return `roots not in the cruise: ${missing.join(', ')} (moved? update EPISODE_ROOTS)`;
  if (files.size > ceiling)
    return `one episode reaches ${files.size} project files, above its ceiling of ${ceiling} (harness/lint/episodeClosure.ts); \`npm run walk:episode\` shows what brings the most`;
  return null;
}
