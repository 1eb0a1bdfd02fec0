// `npm run bench:heldout -- [--dataset pau-v1] [--split test] [--out F.json]`: how strong a dataset's
// held-out inputs are, from the real dataset (Postgres) and the real sandbox (issue 12, point 5). For each
// method it runs the original on its first example input and on both held-out sets:
//   mutated: the judge's older set (own held-out inputs + 10 literal mutations; generated inputs count only
//            where the original returns a value), what every dataset built before typed generation gets;
//   dataset: the build's typed set (own held-out inputs + stored generated ones; raising inputs count),
//            with the build's code-match exclusions.
// It prints, per set, overall and per source: methods with held-out inputs of their own, with none counted,
// with fewer than 2 distinct outcomes, usable, and the constant-function baseline (a function that returns
// the first example's output): its mean code match and the number of methods where it scores 100 %.
// With --examples K (default 20, the call budget) it also runs each method's in-context examples in both
// modes (the first 10 probe inputs, and the budget-matched generated ones) and reports how many examples
// a method gets, how many raise, and how many distinct outcomes they show.
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { closeSharedSandboxPool, sharedSandboxPool } from '../../activities/sandbox/index';
import { connect } from '../../db/client';
import { getDataset, getDatasetMethods, type DatasetMethod } from '../../platform/dataset/store';
import { DEFAULT_IN_CONTEXT_K } from '../../domain/episode/types';
import { inContextExamples } from '../../domain/inputs/generator';
import { codeMatchSet, type CodeMatchSet, countedInputs, DEFAULT_HELDOUT } from '../../domain/judge/codeMatch';
import { isEvidence } from '../../domain/judge/diagnostics';
import { DEFAULT_EQUALITY, outcomesEqual } from '../../domain/judge/outcomeEquality';
import { formatTable } from '../../domain/report/table';
import type { CallResult } from '../../domain/sandbox/schemas';
import { outcomeKey } from '../../domain/sandbox/outcomeKey';

const Args = z.object({
  dataset: z.string().default('pau-v1'),
  split: z.enum(['train', 'validation', 'test']).default('test'),
  out: z.string().optional(),
  concurrency: z.coerce.number().int().min(1).max(16).default(2),
  examples: z.coerce.number().int().min(0).max(100).default(20),
});

interface ExampleFigures {
  id: string;
  source: string;
  mode: 'probe' | 'generated';
  k: number;
  raising: number;
  distinct: number;
}

type SetName = 'mutated' | 'dataset';

interface MethodFigures {
  id: string;
  source: string;
  ownHeldout: number;
  set: SetName;
  inputs: number;
  counted: number;
  distinct: number;
  raising: number;
  excluded: string | null;
  /** Code match of the constant function (null: no counted input). */
  constant: number | null;
}

function distinctOutcomes(rs: CallResult[]): number {
  return new Set(rs.map((r) => outcomeKey(r))).size;
}

function figuresFor(m: DatasetMethod, set: CodeMatchSet, name: SetName, first: CallResult, results: CallResult[]): MethodFigures {
  const counted = countedInputs(results, set.given.length, set.raisingCounts);
  const rs = counted.map((i) => results[i]!);
  const constantEqual = first.ok ? rs.filter((r) => outcomesEqual(r, first, DEFAULT_EQUALITY)).length : 0;
  return {
    id: m.id,
    source: m.source,
    ownHeldout: m.heldoutInputs.length,
    set: name,
    inputs: set.given.length + set.generated.length,
    counted: counted.length,
    distinct: distinctOutcomes(rs),
    raising: rs.filter((r) => !r.ok).length,
    excluded: set.excluded ?? (counted.length === 0 ? 'no-heldout-inputs' : distinctOutcomes(rs) < 2 ? 'fewer-than-2-distinct-heldout-outputs' : null),
    constant: counted.length > 0 ? constantEqual / counted.length : null,
  };
}

function table(rows: MethodFigures[], by: (r: MethodFigures) => string): string {
  const groups = new Map<string, MethodFigures[]>();
  for (const r of rows) groups.set(by(r), [...(groups.get(by(r)) ?? []), r]);
  groups.set('total', rows);
  const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
  return formatTable(
    [
      'group',
      'methods',
      'own held-out',
      'none counted',
      '<2 distinct',
      'usable',
      'inputs/method',
      'raising share',
      'const. baseline (all scored)',
      'const. = 100 %',
      'const. baseline (usable)',
      'const. = 100 % (usable)',
    ],
    [...groups.entries()].map(([g, rs]) => {
      const scored = rs.filter((r) => r.constant !== null);
      const usable = rs.filter((r) => r.excluded === null);
      const mean = (xs: MethodFigures[]) => (xs.length ? xs.reduce((s, r) => s + (r.constant ?? 0), 0) / xs.length : 0);
      const counted = rs.reduce((s, r) => s + r.counted, 0);
      return [
        g,
        rs.length,
        rs.filter((r) => r.ownHeldout > 0).length,
        rs.filter((r) => r.counted === 0).length,
        rs.filter((r) => r.counted > 0 && r.distinct < 2).length,
        usable.length,
        (counted / Math.max(1, rs.length)).toFixed(1),
        pct(rs.reduce((s, r) => s + r.raising, 0) / Math.max(1, counted)),
        pct(mean(scored)),
        scored.filter((r) => r.constant === 1).length,
        pct(mean(usable)),
        usable.filter((r) => r.constant === 1).length,
      ];
    }),
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: { dataset: { type: 'string' }, split: { type: 'string' }, out: { type: 'string' }, concurrency: { type: 'string' }, examples: { type: 'string' } },
    allowPositionals: false,
  });
  const a = Args.parse(values);
  const h = connect(undefined, 2);
  const pool = sharedSandboxPool();
  const started = Date.now();
  try {
    const ds = await getDataset(h.db, a.dataset);
    if (!ds || ds.status !== 'ready') throw new Error(`no ready dataset ${a.dataset}`);
    const ms = await getDatasetMethods(h.db, a.dataset, { split: a.split });
    const hasTyped = ms.some((m) => m.heldoutGenerated != null);
    console.log(
      `held-out report: dataset ${a.dataset} (${ds.contentHash.slice(0, 19)}), split ${a.split}, ${ms.length} methods, sandbox mode ${await pool.mode()}${hasTyped ? '' : ' (no typed held-out inputs stored: built before typed generation)'}`,
    );
    const rows: MethodFigures[] = [];
    const exampleRows: ExampleFigures[] = [];
    let done = 0;
    const queue = [...ms];
    const worker = async () => {
      for (let m = queue.shift(); m; m = queue.shift()) {
        const sets: [SetName, CodeMatchSet][] = [['mutated', codeMatchSet(m, DEFAULT_HELDOUT, 'mutated')]];
        if (m.heldoutGenerated != null) sets.push(['dataset', codeMatchSet(m, DEFAULT_HELDOUT, 'dataset')]);
        const first = m.probeInputs[0] ?? '';
        const examples: [ExampleFigures['mode'], string[]][] =
          a.examples > 0
            ? [
                ['probe', m.probeInputs.slice(0, DEFAULT_IN_CONTEXT_K)],
                ['generated', inContextExamples(m, a.examples)],
              ]
            : [];
        const calls = [first, ...sets.flatMap(([, s]) => [...s.given, ...s.generated]), ...examples.flatMap(([, xs]) => xs)];
        const { results } = await pool.runBatch({ source: m.code, entry: m.entryPoint ?? '', calls });
        let at = 1;
        for (const [name, s] of sets) {
          const n = s.given.length + s.generated.length;
          rows.push(figuresFor(m, s, name, results[0]!, results.slice(at, at + n)));
          at += n;
        }
        for (const [mode, xs] of examples) {
          const rs = results.slice(at, at + xs.length).filter((r) => isEvidence(r));
          exampleRows.push({ id: m.id, source: m.source, mode, k: xs.length, raising: rs.filter((r) => !r.ok).length, distinct: distinctOutcomes(rs) });
          at += xs.length;
        }
        done++;
        if (done % 25 === 0 || done === ms.length) {
          const el = (Date.now() - started) / 1000;
          process.stderr.write(`\r  ${done}/${ms.length} methods  elapsed ${el.toFixed(0)} s  ETA ${((el / done) * (ms.length - done)).toFixed(0)} s   `);
        }
      }
    };
    await Promise.all(Array.from({ length: a.concurrency }, worker));
    process.stderr.write('\n');
    rows.sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : x.set < y.set ? -1 : 1));
    for (const name of ['mutated', 'dataset'] as const) {
      const rs = rows.filter((r) => r.set === name);
      if (rs.length === 0) continue;
      console.log(
        `\n${name === 'mutated' ? 'mutated held-out set (judge-time literal mutation; generated inputs count only when they return)' : 'dataset held-out set (typed generation at build; raising inputs count; stored exclusions)'}:`,
      );
      console.log(table(rs, (r) => r.source));
      const reasons = new Map<string, number>();
      for (const r of rs) if (r.excluded) reasons.set(r.excluded, (reasons.get(r.excluded) ?? 0) + 1);
      console.log(`excluded from code match: ${[...reasons.entries()].map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}`);
    }
    if (exampleRows.length > 0) {
      console.log(
        `\nin-context examples (probe: the first ${DEFAULT_IN_CONTEXT_K} probe inputs, the older mode; generated: budget-matched, k = ${a.examples}):`,
      );
      const groups = new Map<string, ExampleFigures[]>();
      for (const r of exampleRows) for (const g of [`${r.source} / ${r.mode}`, `total / ${r.mode}`]) groups.set(g, [...(groups.get(g) ?? []), r]);
      const mean = (xs: number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : 0);
      console.log(
        formatTable(
          ['source / mode', 'methods', 'examples/method', 'min', 'raising share', 'distinct outcomes/method'],
          [...groups.entries()]
            .sort(([x], [y]) => (x < y ? -1 : 1))
            .map(([g, rs]) => [
              g,
              rs.length,
              mean(rs.map((r) => r.k)).toFixed(2),
              Math.min(...rs.map((r) => r.k)),
              `${(
                (100 * rs.reduce((s, r) => s + r.raising, 0)) /
                  Math.max(
                    1,
                    rs.reduce((s, r) => s + r.k, 0),
                  )
              ).toFixed(1)} %`,
              mean(rs.map((r) => r.distinct)).toFixed(2),
            ]),
        ),
      );
    }
    if (a.out) {
      fs.writeFileSync(a.out, JSON.stringify({ dataset: a.dataset, contentHash: ds.contentHash, split: a.split, rows, examples: exampleRows }, null, 1));
      console.log(`\nper-method figures: ${a.out}`);
    }
    console.log(`\nsummary: ${ms.length} ${a.split} methods of ${a.dataset} in ${((Date.now() - started) / 1000).toFixed(0)} s.`);
  } finally {
    await closeSharedSandboxPool();
    await h.close();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`bench:heldout: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
