// `npm run lint:deps`, first half: reads dependency-cruiser's JSON result on stdin, prints the rule
// violations as its `err` reporter does, then fails on any folder-level cycle (folderCycles.ts), which no
// rule in .dependency-cruiser.cjs can express. One cruise serves both checks.
import { format, type ICruiseResult } from 'dependency-cruiser';
import { folderCycles } from './folderCycles';

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
  const cycles = folderCycles(result.modules);
  for (const c of cycles) {
    console.error(`\n  error no-folder-cycles: ${c.folders.join(' ↔ ')}`);
    for (const e of c.edges) console.error(`    ${e.from} → ${e.to}, e.g. ${e.example.from} → ${e.example.to}`);
  }
  if (cycles.length > 0)
    console.error('\n  The top-level folders import one way only (docs/architecture.md): move the shared type or function to the lower folder.\n');
  return rules.exitCode > 0 || cycles.length > 0 ? 1 : 0;
}

process.exitCode = await main();
