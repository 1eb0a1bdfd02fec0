// Every numeric option of the CLI has a range a real run can use: refused at the command line naming the
// flag and the range (exit 2 in the dispatcher), shown in its `--help`, and checked again where the value is
// used (a run's config, an episode's input, an SFT run's config), so a caller that skips the CLI is refused too.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { runConfigProblems } from '../../domain/bench/configBounds';
import type { BenchmarkConfig } from '../../domain/bench/types';
import { rangeProblem, rangeSchema, realRange, schemaProblems, wholeRange } from '../../domain/common/numberRange';
import { episodeBoundsProblems } from '../../domain/episode/bounds';
import { type GrpoConfig, grpoConfigProblems } from '../../domain/training/grpo';
import { sftTrainConfigProblems } from '../../domain/training/sftTrain';
import { grpoConfig } from '../fixtures/grpoConfig';
import { parseCommandArgs, UsageError } from '../../scripts/lib/args';
import { helpText, rangeOf, type VerbUsage } from '../../scripts/lib/options';
import { benchRunOptions } from '../../scripts/options/bench';
import { buildOptions } from '../../scripts/options/dataset';
import { runsCancelOptions } from '../../scripts/options/runs';
import { sftTrainOptions } from '../../scripts/options/sft';
import { grpoTrainOptions } from '../../scripts/options/grpo';

const ROOT = path.resolve(import.meta.dirname, '../..');
const UNRANGED_VERBS = new Set<string>();
const verbs = fs
  .readdirSync(path.join(ROOT, 'scripts/options'))
  .filter((f) => f.endsWith('.ts') && f !== 'runSelection.ts')
  .map((f) => f.slice(0, -3));

/** Whether an option's value is a number (under optional/default wrappers and a parsing pipe). */
function isNumeric(schema: z.ZodType): boolean {
  let s = schema;
  for (;;) {
    const def = s._zod.def as { type: string; innerType?: z.ZodType; out?: z.ZodType };
    if (def.innerType && ['optional', 'default', 'nullable', 'prefault'].includes(def.type)) s = def.innerType;
    else if (def.type === 'pipe' && def.out) s = def.out;
    else return def.type === 'number';
  }
}

const refusal = (argv: string[], options: Parameters<typeof parseCommandArgs>[1]): string => {
  try {
    parseCommandArgs(argv, options);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error(`${argv.join(' ')} was accepted`);
};

describe('a numeric option at the command line', () => {
  it('out of its range: a usage error naming the flag, the range and the value', () => {
    const models = ['--models', 'mock-random', '--limit', '1'];
    expect(refusal([...models, '--max-calls', '1000000000'], benchRunOptions)).toBe('--max-calls: must be a whole number from 1 to 200, not 1000000000');
    expect(refusal([...models, '--k', '1000000000'], benchRunOptions)).toBe('--k: must be a whole number from 0 to 200, not 1000000000');
    expect(refusal([...models, '--max-turns', '0'], benchRunOptions)).toBe('--max-turns: must be a whole number from 1 to 200, not 0');
    expect(refusal([...models, '--samples', '1.5'], benchRunOptions)).toBe('--samples: must be a whole number from 1 to 100, not 1.5');
    expect(refusal([...models, '--seed=-1'], benchRunOptions)).toBe('--seed: must be a whole number from 0 to 2147483647, not -1');
    expect(refusal([...models, '--window', 'lots'], benchRunOptions)).toBe('--window: must be a whole number from 1 to 1000');
    expect(refusal([...models, '--k', ''], benchRunOptions)).toBe('--k: must be a whole number from 0 to 200'); // not read as 0
    expect(refusal([...models, '--outage-wait', '30d'], benchRunOptions)).toBe('--outage-wait: must be a whole number from 0 to 604800 seconds, not 2592000');
    expect(refusal(['--data', 'd', '--base', 'b', '--lr', '0'], sftTrainOptions)).toBe('--lr: must be a number above 0 up to 1, not 0');
    // grpo train: the learning rate, G and the rollouts' budget
    const grpo = ['--base', 'local/x'];
    expect(refusal([...grpo, '--lr', '0.5'], grpoTrainOptions)).toBe('--lr: must be a number from 0.000001 to 0.01, not 0.5');
    expect(refusal([...grpo, '--group', '1'], grpoTrainOptions)).toBe('--group: must be a whole number from 2 to 64, not 1');
    expect(refusal([...grpo, '--max-calls', '1000000000'], grpoTrainOptions)).toBe('--max-calls: must be a whole number from 1 to 200, not 1000000000');
    expect(refusal([...grpo, '--std-floor=-1'], grpoTrainOptions)).toBe('--std-floor: must be a number from 0 to 10, not -1');
    expect(refusal(['--batch-size', '501'], buildOptions)).toBe('--batch-size: must be a whole number from 1 to 500, not 501');
    expect(refusal(['--wait', '86400'], runsCancelOptions)).toBe('--wait: must be a whole number from 0 to 3600 seconds, not 86400');
  });

  it('in its range: the number, bounds included', () => {
    const v = parseCommandArgs(
      ['--models', 'm', '--max-calls', '200', '--k', '0', '--samples', '100', '--outage-wait', '7d', '--temperature', '0.7'],
      benchRunOptions,
    ).values;
    expect(v).toMatchObject({ 'max-calls': 200, k: 0, samples: 100, 'outage-wait': 604_800, temperature: 0.7 });
  });

  it.each(verbs.filter((v) => !UNRANGED_VERBS.has(v)))('pau %s: every numeric option has a range, and its --help says it', async (v) => {
    const { verb } = (await import(`../../scripts/options/${v}.ts`)) as { verb: VerbUsage };
    const help = helpText(verb);
    for (const form of verb.forms) {
      for (const e of form.options?.entries ?? []) {
        const schema = form.options!.schema.shape[e.name] as z.ZodType;
        if (!isNumeric(schema)) continue;
        const range = rangeOf(schema);
        expect(range, `${v} --${e.name} has no range`).toBeDefined();
        expect(Number.isFinite(range!.min) && Number.isFinite(range!.max), `${v} --${e.name}`).toBe(true);
        expect(help.split('\n').find((l) => l.trimStart().startsWith(`${e.flag} `))).toContain(`[${range!.minExclusive ? 'above ' : ''}${range!.min}`);
      }
    }
  });
});

describe('a range where the value is used', () => {
  it('one message for every way to miss it', () => {
    const s = rangeSchema(wholeRange(1, 200));
    expect(schemaProblems(s, 1_000_000_000)).toEqual(['must be a whole number from 1 to 200, not 1000000000']);
    expect(schemaProblems(s, 2.5)).toEqual(['must be a whole number from 1 to 200, not 2.5']);
    expect(schemaProblems(s, '7')).toEqual(['must be a whole number from 1 to 200']);
    expect(schemaProblems(s, 200)).toEqual([]);
    expect(rangeProblem('lr', 0, realRange(0, 1, { minExclusive: true }))).toBe('lr must be a number above 0 up to 1, not 0');
    expect(rangeProblem('lr', undefined, realRange(0, 1))).toBeNull();
  });

  it("a benchmark run's config (a schedule's, an API caller's): every number out of range named", () => {
    const base: BenchmarkConfig = { dataset: 'd', split: 'test', models: ['mock-random'], settings: ['in-context'], samples: 1 };
    expect(runConfigProblems(base)).toEqual([]);
    expect(runConfigProblems({ ...base, limit: 1, budgets: { maxCalls: 20, maxTurns: 20 }, k: 20, window: 50, outageWaitSeconds: 3600 })).toEqual([]);
    expect(
      runConfigProblems({
        ...base,
        samples: 0,
        window: 5_000,
        params: { temperature: 3, seed: -1 },
        budgets: { maxCalls: 1_000_000_000 },
        k: 1_000_000_000,
        modelLimits: { 'mock-random': 0 },
      }),
    ).toEqual([
      'samples must be a whole number from 1 to 100, not 0',
      'window must be a whole number from 1 to 1000, not 5000',
      'params.temperature must be a number from 0 to 2, not 3',
      'params.seed must be a whole number from 0 to 2147483647, not -1',
      'budgets.maxCalls must be a whole number from 1 to 200, not 1000000000',
      'k must be a whole number from 0 to 200, not 1000000000',
      'modelLimits.mock-random must be a whole number of methods, at least 1 (got 0)',
    ]);
  });

  it("an episode's input, whoever started it", () => {
    expect(episodeBoundsProblems({})).toEqual([]);
    expect(episodeBoundsProblems({ budgets: { maxIdleTurns: 3 }, k: 200 })).toEqual([]);
    expect(episodeBoundsProblems({ budgets: { maxTurns: 201 }, k: -1, outageWaitSeconds: 1e9 })).toEqual([
      'budgets.maxTurns must be a whole number from 1 to 200, not 201',
      'k must be a whole number from 0 to 200, not -1',
      'outageWaitSeconds must be a whole number from 0 to 604800 seconds, not 1000000000',
    ]);
  });

  it("an SFT run's config: its trainer settings and its evaluation", () => {
    const eval_ = { dataset: 'd', split: 'validation', settings: ['interactive' as const], samples: 1, judgeModel: 'j' };
    expect(sftTrainConfigProblems({ data: 'x', base: 'b', lr: 2e-4, epochs: 1.5, eval: eval_ })).toEqual([]);
    expect(sftTrainConfigProblems({ data: 'x', base: 'b', lr: 2e4, maxSteps: 0, eval: { ...eval_, budgets: { maxCalls: 1e9 } } })).toEqual([
      'lr must be a number above 0 up to 1, not 20000',
      'maxSteps must be a whole number from 1 to 1000000, not 0',
      'eval.budgets.maxCalls must be a whole number from 1 to 200, not 1000000000',
    ]);
  });

  it("a GRPO run's config: its own settings, the trainer's it passes on and the rollouts' budgets", () => {
    expect(grpoConfigProblems(grpoConfig({ lr: 5e-4, maxLength: 1024, budgets: { maxCalls: 4 } }))).toEqual([]);
    expect(grpoConfigProblems(grpoConfig({ group: 1, lr: 1, miniBatchSize: 0, budgets: { maxCalls: 1e9 } }))).toEqual([
      'group must be a whole number from 2 to 64, not 1',
      'lr must be a number from 0.000001 to 0.01, not 1',
      'miniBatchSize must be a whole number from 1 to 4096, not 0',
      'budgets.maxCalls must be a whole number from 1 to 200, not 1000000000',
    ]);
    // A setting every start writes may not be missing; an optional one may.
    const { group: _, ...noGroup } = grpoConfig();
    expect(grpoConfigProblems({ ...noGroup, rolloutWindow: undefined } as unknown as GrpoConfig)).toEqual(['group must be a whole number from 2 to 64']);
  });
});
