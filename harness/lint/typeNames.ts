// One name per type (issue 28: "no type declared twice under two names"), checked in `npm run lint` over every
// TypeScript file outside test/: a plain alias (`type A = B`, a second name for a type that already has one) and a
// shape declared twice (under two names, or under one name in two files, like the two `PyValue`s the issue found)
// are findings. Import the first declaration instead, or give the second its own members. The check is pure
// (`typeNameFindings`); run as a script it reads the code folders.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export interface SourceText {
  path: string;
  text: string;
}

export interface TypeNameFinding {
  kind: 'alias' | 'same-shape';
  /** `Name@path` of each declaration involved. */
  declarations: string[];
  detail: string;
}

/** Shorter shapes (`string | null`, `'a' | 'b'`) are too common to mean one concept. */
const MIN_SHAPE_CHARS = 25;

const printer = ts.createPrinter({ removeComments: true });

export function typeNameFindings(files: readonly SourceText[]): TypeNameFinding[] {
  const findings: TypeNameFinding[] = [];
  const byShape = new Map<string, string[]>();
  for (const f of files) {
    const sf = ts.createSourceFile(f.path, f.text, ts.ScriptTarget.Latest, true);
    const print = (n: ts.Node) => printer.printNode(ts.EmitHint.Unspecified, n, sf).replace(/\s+/g, ' ');
    const members = (ms: ts.NodeArray<ts.TypeElement>) => `{${ms.map(print).sort().join(';')}}`;
    for (const s of sf.statements) {
      let shape: string;
      if (ts.isInterfaceDeclaration(s)) {
        if (s.heritageClauses || s.typeParameters) continue; // an extension or a generic is a type of its own
        shape = members(s.members);
      } else if (ts.isTypeAliasDeclaration(s)) {
        if (ts.isTypeReferenceNode(s.type) && !s.type.typeArguments && !s.typeParameters) {
          findings.push({ kind: 'alias', declarations: [`${s.name.text}@${f.path}`], detail: `type ${s.name.text} = ${print(s.type)}: use ${print(s.type)}` });
          continue;
        }
        if (s.typeParameters) continue;
        shape = ts.isTypeLiteralNode(s.type) ? members(s.type.members) : print(s.type);
      } else continue;
      if (shape.length < MIN_SHAPE_CHARS) continue;
      const list = byShape.get(shape) ?? [];
      list.push(`${s.name.text}@${f.path}`);
      byShape.set(shape, list);
    }
  }
  for (const [shape, declarations] of byShape) {
    if (declarations.length > 1) {
      findings.push({ kind: 'same-shape', declarations, detail: `the same shape declared ${declarations.length} times: ${shape.slice(0, 160)}` });
    }
  }
  return findings;
}

/** Every folder of code (the layers of docs/architecture.md); test/ may repeat shapes on purpose. */
const CODE_FOLDERS = ['domain', 'config', 'db', 'platform', 'activities', 'workflows', 'workers', 'scripts', 'harness'];

function main(): void {
  const tracked = CODE_FOLDERS.flatMap((dir) =>
    fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((p) => path.join(dir, p)) : [],
  ).filter((p) => p.endsWith('.ts') && !p.endsWith('.d.ts'));
  const findings = typeNameFindings(tracked.map((p) => ({ path: p, text: fs.readFileSync(p, 'utf8') })));
  for (const f of findings) console.error(`type names: ${f.kind}: ${f.declarations.join(', ')}: ${f.detail}`);
  if (findings.length > 0) {
    console.error(`type names: ${findings.length} finding(s) in ${tracked.length} files: one name per type (harness/lint/typeNames.ts)`);
    process.exit(1);
  }
  console.log(`type names: ${tracked.length} files, no type under two names`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === fs.realpathSync(process.argv[1])) main();
