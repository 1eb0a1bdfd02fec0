// The project speaks of itself alone, checked in `npm run lint` over every file git tracks (or would track):
// no line names the numbered work period in which something was made or measured. A figure carries its
// date and machine ("2026-12-03, 2 idle cores"), a decision its reason. The check is pure
// (`narrativeFindings`); run as a script it reads the files `git ls-files` lists.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

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

function main(): void {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const files = [...new Set(listed.split('\0'))].filter((p) => p !== '' && fs.statSync(p, { throwIfNoEntry: false })?.isFile());
  const findings = files.flatMap((p) => narrativeFindings(p, fs.readFileSync(p, 'utf8')));
  for (const f of findings) console.error(`${f.path}:${f.line}: ${f.text}`);
  if (findings.length > 0) {
    console.error(`narrative: ${findings.length} line(s) name a work period: say what is, and give a figure its date and machine (harness/lint/narrative.ts)`);
    process.exit(1);
  }
  console.log(`narrative: ${files.length} files, none names a work period`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === fs.realpathSync(process.argv[1])) main();
