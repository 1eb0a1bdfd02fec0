// The project speaks of itself alone, checked in `npm run lint` over every file git tracks (or would track):
// no line names the numbered work period in which something was made or measured. A figure carries its
// date and machine ("2026-12-03, 2 idle cores"), a decision its reason. The check is pure
// (`narrativeFindings`); narrativeLint.ts runs it over the files `git ls-files` lists.

/** A numbered work period, singular or plural, any case. */
export const WORK_PERIOD = /\bsessions? [0-9]+/i;

export interface NarrativeFinding {
  path: string;
  line: number;
  text: string;
}

/** The lines of one file that name a work period; none for a binary file (a NUL byte in it). */
export function narrativeFindings(path: string, text: string): NarrativeFinding[] {
  if (text.includes('\0')) return [];
  const out: NarrativeFinding[] = [];
  text.split('\n').forEach((line, i) => {
    if (WORK_PERIOD.test(line)) out.push({ path, line: i + 1, text: line.trim() });
  });
  return out;
}
