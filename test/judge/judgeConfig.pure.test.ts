// Which judge and code writer score a run (domain/judge/config.ts), the automatic judge, the self-judging
// pairs a forced run records, and each run kind's stored documents read through one reader (db/runDocuments.ts).
import { describe, expect, it } from 'vitest';
import { automaticJudge, coderModelOf, DEFAULT_JUDGE_MODEL, judgeModelOf, resolveJudgeConfig, storedCoderModel } from '../../domain/judge/config';
import { type SelfJudgePair, withSelfJudgePairs } from '../../domain/judge/selfJudge';
import { parseRunConfig, parseRunSummary } from '../../db/runDocuments';
import { parseRunJudgeFields } from '../../db/runJudgeFields';
import { StoredJsonError } from '../../db/jsonb';
import { parseCommandArgs, UsageError } from '../../scripts/lib/args';
import { judgeCardOptions } from '../../scripts/options/calibrate';

describe('the judge precedence', () => {
  it('the code writer: the caller, then judge.coderModel, then coderModel, then the judge', () => {
    expect(coderModelOf({ judge: { coderModel: 'a' }, coderModel: 'b' }, 'j', 'x')).toBe('x');
    expect(coderModelOf({ judge: { coderModel: 'a' }, coderModel: 'b' }, 'j')).toBe('a');
    expect(coderModelOf({ coderModel: 'b' }, 'j')).toBe('b');
    expect(coderModelOf({}, 'j')).toBe('j');
    expect(storedCoderModel({})).toBeUndefined();
  });

  it('the judge: the caller, then judge.judgeModel, then judgeModel, then the scripted oracle', () => {
    expect(judgeModelOf({ judge: { judgeModel: 'a' }, judgeModel: 'b' }, 'x')).toBe('x');
    expect(judgeModelOf({ judge: { judgeModel: 'a' }, judgeModel: 'b' })).toBe('a');
    expect(judgeModelOf({ judgeModel: 'b' })).toBe('b');
    expect(judgeModelOf({})).toBe(DEFAULT_JUDGE_MODEL);
  });

  it('caller, then the run config, then defaults; the coder defaults to the judge', () => {
    expect(resolveJudgeConfig({ episodeId: 'e' }, {})).toMatchObject({ judgeModel: 'mock-oracle', coderModel: 'mock-oracle', underExploredThreshold: 0.75 });
    expect(
      resolveJudgeConfig({ episodeId: 'e' }, { judgeModel: 'gpt', judge: { underExploredThreshold: 0.5, heldout: { generated: 3 } as never } }),
    ).toMatchObject({
      judgeModel: 'gpt',
      coderModel: 'gpt',
      underExploredThreshold: 0.5,
      heldout: { generated: 3, seed: 1 },
    });
    expect(
      resolveJudgeConfig({ episodeId: 'e', judgeModel: 'a', coderModel: 'b', config: { equality: { tupleEqualsList: true } as never } }, { judgeModel: 'gpt' }),
    ).toMatchObject({
      judgeModel: 'a',
      coderModel: 'b',
      equality: { tupleEqualsList: true, relTol: 1e-6 },
    });
  });

  it("the coder's programs per description: one unless the caller or the run's judge config says; out of range is refused", () => {
    expect(resolveJudgeConfig({ episodeId: 'e' }, {}).coderSamples).toBe(1);
    expect(resolveJudgeConfig({ episodeId: 'e' }, { judge: { coderSamples: 3 } }).coderSamples).toBe(3);
    expect(resolveJudgeConfig({ episodeId: 'e', config: { coderSamples: 5 } }, { judge: { coderSamples: 3 } }).coderSamples).toBe(5);
    expect(() => resolveJudgeConfig({ episodeId: 'e' }, { judge: { coderSamples: 0 } })).toThrow(/coder samples must be an integer from 1 to 9, got 0/);
  });

  it('a retired judge format in a run config or at the command line is refused, naming the format that replaced it', () => {
    expect(resolveJudgeConfig({ episodeId: 'e' }, {}).format).toBe('contrast');
    expect(resolveJudgeConfig({ episodeId: 'e' }, { judge: { format: 'verify' } }).format).toBe('verify');
    for (const retired of ['checklist', 'score-first'])
      expect(() => resolveJudgeConfig({ episodeId: 'e' }, { judge: { format: retired as never } })).toThrow(
        new RangeError(
          `judge format \`${retired}\` is retired (2026-12-07: it did not qualify a judge); the \`contrast\` format replaced it (docs/results/judging.md)`,
        ),
      );
    expect(() => resolveJudgeConfig({ episodeId: 'e' }, { judge: { format: 'likert' as never } })).toThrow(
      /unknown judge format "likert" \(known: rationale, verify, contrast\)/,
    );
    expect(() => parseCommandArgs(['--judge', 'm', '--format', 'checklist'], judgeCardOptions)).toThrow(
      new UsageError(
        '--format: judge format `checklist` is retired (2026-12-07: it did not qualify a judge); the `contrast` format replaced it (docs/results/judging.md)',
      ),
    );
    expect(parseCommandArgs(['--judge', 'm', '--format', 'rationale'], judgeCardOptions).values.format).toBe('rationale');
  });

  it('the automatic judge: scripted for scripted agents, the strongest local for local ones, none otherwise', () => {
    const never = () => {
      throw new Error('asked for a local judge');
    };
    expect(automaticJudge(['mock', 'mock'], never)).toEqual({ kind: 'scripted', judgeModel: 'mock-oracle' });
    expect(automaticJudge(['local', 'mock'], () => 'local/qwen')).toEqual({ kind: 'local', judgeModel: 'local/qwen' });
    expect(automaticJudge(['local'], () => undefined)).toEqual({ kind: 'no-local' });
    expect(automaticJudge(['local', 'openai'], never)).toEqual({ kind: 'none' });
  });

  it('a forced run records each self-judging pair once', () => {
    const pair = (agent: string, role: 'judge' | 'coder'): SelfJudgePair => ({ agent, judge: 'm', role, relation: 'same' });
    expect(withSelfJudgePairs([pair('a', 'judge')], [pair('a', 'judge'), pair('a', 'coder'), pair('b', 'judge')])).toEqual([
      pair('a', 'judge'),
      pair('a', 'coder'),
      pair('b', 'judge'),
    ]);
  });
});

describe('a run kind config and summary, one reader', () => {
  const bench = { dataset: 'd', split: 'test', models: ['m'], settings: ['interactive'], samples: 1, coderModel: 'c', extra: 1 };

  it('parses each kind with its schema, keeping fields it does not check', () => {
    expect(parseRunConfig('benchmark', bench, 'r1')).toEqual(bench);
    expect(parseRunConfig('sft', { data: 'd', base: 'b', eval: null }, 'r2').base).toBe('b');
    expect(parseRunConfig('calibration', { dataset: 'd', split: 's', resolvedMethodIds: ['x'] }, 'r3').resolvedMethodIds).toEqual(['x']);
    expect(parseRunSummary('calibration', null, 'r3')).toBeNull();
    expect(parseRunSummary('benchmark', { done: 2, failed: 0, total: 2, report: 7 }, 'r1')?.report).toBe(7);
  });

  it('a row that does not fit its kind fails naming the run, the column and the field', () => {
    expect(() => parseRunConfig('benchmark', { models: ['m'] }, 'r9')).toThrow(StoredJsonError);
    expect(() => parseRunConfig('benchmark', { models: ['m'] }, 'r9')).toThrow(/runs\.config of row r9 does not fit its schema: dataset/);
    expect(() => parseRunConfig('grpo', { ...bench, base: 'b' }, 'r8')).toThrow(/runs\.config of row r8/);
    expect(() => parseRunSummary('sft', { evalRunId: 3 }, 'r7')).toThrow(/runs\.summary of row r7 .*evalRunId/);
    expect(() => parseRunConfig('benchmark', { ...bench, coderModel: 5 }, 'r6')).toThrow(/coderModel/);
  });

  it('judge fields come from the kinds that hold them, checked alone', () => {
    expect(parseRunJudgeFields('benchmark', bench, 'r1')).toMatchObject({ coderModel: 'c' });
    expect(parseRunJudgeFields('calibration', { anything: true }, 'r3')).toEqual({});
    // The judge reads its own fields: a config the benchmark's schema refuses still names its judge.
    expect(parseRunJudgeFields('grpo', { judgeModel: 'j', judge: { format: 'verify' } }, 'r5')).toMatchObject({ judgeModel: 'j', judge: { format: 'verify' } });
    expect(() => parseRunJudgeFields('benchmark', { ...bench, coderModel: 5 }, 'r6')).toThrow(/runs\.config of row r6 does not fit its schema: coderModel/);
  });
});
