// `npm run lint:deps`, first half: reads dependency-cruiser's JSON result on stdin, prints the rule
// violations as its `err` reporter does, then fails on any folder-level cycle (folderCycles.ts), between
// top-level folders or between the concept folders inside domain/, which no rule in .dependency-cruiser.cjs
// can express, and on an episode that loads more files than its ceiling (episodeClosure.ts). One cruise
// serves all the checks.
import { format, type ICruiseResult } from 'dependency-cruiser';
import { episodeClosureProblem } from './episodeClosure';
import { domainConcept, folderCycles, topFolder } from './folderCycles';

const LEVELS = [
  {
    rule: 'no-folder-cycles',
    folderOf: topFolder,
    fix: 'The top-level folders import one way only (docs/architecture.md): move the shared type or function to the lower folder.',
  },
  {
    rule: 'no-domain-concept-cycles',
    folderOf: domainConcept,
    fix: 'The concept folders in domain/ import one way only: move the shared piece into the lower concept (or a leaf such as domain/stats/).',
  },
];

async function main(): Promise<number> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  let result: ICruiseResult;
  try {
    result = JSON.parse(text) as ICruiseResult;
  } catch {
    console.error(`lint:deps: dependency-cruiser gave no JSON result (${text.length} bytes on stdin); run it alone to see why`);
    return 2;
  }
  const rules = await format(result, { outputType: 'err' });
  process.stdout.write(rules.output as string);
  let cycleCount = 0;
  for (const level of LEVELS) {
    const cycles = folderCycles(result.modules, level.folderOf);
    for (const c of cycles) {
      console.error(`\n  error ${level.rule}: ${c.folders.join(' ↔ ')}`);
      for (const e of c.edges) console.error(`    ${e.from} → ${e.to}, e.g. ${e.example.from} → ${e.example.to}`);
    }
    if (cycles.length > 0) console.error(`\n  ${level.fix}\n`);
    cycleCount += cycles.length;
  }
  const closure = episodeClosureProblem(result.modules);
  if (closure) console.error(`\n  error episode-closure-ceiling: ${closure}\n`);
  return rules.exitCode > 0 || cycleCount > 0 || closure ? 1 : 0;
}

process.exitCode = await main();
