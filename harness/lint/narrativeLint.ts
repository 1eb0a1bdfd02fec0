// `npm run lint:narrative`: the narrative check (narrative.ts) over every file git tracks or would track
// (untracked files that .gitignore does not exclude); fails naming each line.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { narrativeFindings } from './narrative';

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

main();
