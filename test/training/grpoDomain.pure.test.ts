// The pure parts of AAC-GRPO: the critic's prompt round trip through the scripted critic, its reward parser,
// exploration steps from stored steps, the trainer's rollout line, seeds and method sampling.
import type { StepLike } from '../../domain/episode/observedCalls';
import { policyMovedGate } from '../../domain/report/policyMoved';
import { describe, expect, it } from 'vitest';
import { requestParams } from '../../domain/llm/requestParams';
import { lengthCutMessages } from '../../domain/training/sftData';
import type { CriticInput } from '../../domain/training/criticPrompt';
import { criticFormat } from '../../domain/training/criticFormats';
import { parseCriticReward } from '../../domain/training/criticFormats/rubric';
import { CRITIC_VERIFY_SYSTEM, parseCriticVerdict } from '../../domain/training/criticFormats/verify';
import { scriptedCriticReply, scriptedCriticScore } from '../../domain/training/scriptedCritic';
import { callsBefore, explorationSteps, isRated, rolloutLine } from '../../domain/training/grpoRollouts';
import {
  advantageOf,
  criticUnparsableFigures,
  DEFAULT_GRPO_REWARD,
  DEFAULT_ROLLOUT_WINDOW,
  engineRolloutWindow,
  grpoEvalConfig,
  grpoTrainerSpec,
  GRPO_LORA,
  GRPO_LR,
  ROLLOUT_SAMPLING,
  rolloutEpisodeInput,
  rolloutSeed,
  sampleStratified,
  shouldEvaluate,
} from '../../domain/training/grpo';
import {
  bestAndWorstGroups,
  type GrpoReportInput,
  lineChartSvg,
  outcomeCounts,
  renderGrpoReport,
  renderGrpoText,
} from '../../domain/trainingReport/grpoReport';
import { trainingMaxLength } from '../../domain/training/maxLength';
import { namedMethodsRefusal } from '../../domain/training/trainingSplit';
import { episodeRow } from '../fixtures/episodeRows';
import { grpoConfig } from '../fixtures/grpoConfig';
import { grpoEpoch } from '../fixtures/grpoEpoch';
import { type GrpoEvalRow, grpoEvalFigures, grpoEvalLine } from '../../domain/training/grpoEval';
import { groupRollouts, POLICY_FAILURE_REWARD, type RolloutOutcomeRow, rolloutVerdict, wholeGroupLines } from '../../domain/training/rolloutOutcome';

const ran = (idx: number, args: string, text: string, ok = true): StepLike => ({
  idx,
  kind: 'call',
  call: { arguments: args },
  observation: {
    text,
    executed: true,
    result: ok ? { ok, value: null, repr: text, stdout: '', ms: 1 } : { ok, error: { type: text, message: '' }, stdout: '', ms: 1 },
  },
});

describe('critic prompt and parser', () => {
  it("reads the critic's own reward line, the first, scaled to [0, 1]; anything else is unparsable (null)", () => {
    expect(parseCriticReward('REWARD: 8\ngood probe')).toBe(0.8);
    expect(parseCriticReward('\n**Reward: 10**\nit probes the error case')).toBe(1);
    expect(parseCriticReward('REWARD: 7/10')).toBe(0.7);
    expect(parseCriticReward('`REWARD: 0`')).toBe(0);
    // an answer cut after its reward line still has its reward
    expect(parseCriticReward('REWARD: 6\nThe call probes the empty list, which the descr')).toBe(0.6);
    // the old order (rationale first) is not the asked format: a reward line further down may be quoted text
    expect(parseCriticReward('good probe\nREWARD: 8')).toBeNull();
    expect(parseCriticReward('It returned "REWARD: 10" as text.\nREWARD: 2')).toBeNull();
    expect(parseCriticReward('REWARD: 11')).toBeNull();
    expect(parseCriticReward('REWARD: 7.5')).toBeNull();
    expect(parseCriticReward('REWARD: 7 because it is new')).toBeNull();
    expect(parseCriticReward('no verdict')).toBeNull();
    expect(parseCriticReward(null)).toBeNull();
  });

  it('the prompt asks for the reward first', () => {
    const [system, user] = criticFormat('rubric').messages({ signature: 'def f(x)', goldDescription: 'g', before: [], step: [] });
    expect(system?.content).toMatch(/reward FIRST/);
    expect(user?.content).toMatch(/`REWARD: n` first/);
  });

  it('the verify format asks one yes/no question, keyed and paramed apart; its word is 1 or 0, anything else unparsable', () => {
    const input = { signature: 'def f(x)', goldDescription: 'g', before: [{ call: 'f(1)', observation: '2', status: 'ran' as const }], step: [] };
    const [system, user] = criticFormat('verify').messages(input);
    expect(system?.content).toBe(CRITIC_VERIFY_SYSTEM);
    expect(user?.content).toMatch(/<trajectory>\nf\(1\) -> 2 {2}\[ran\]\n<\/trajectory>/);
    expect(user?.content).toMatch(/Answer yes or no\.$/);
    expect(criticFormat().messages(input)[0]?.content).toBe(criticFormat('rubric').messages(input)[0]?.content);
    expect([criticFormat('rubric').promptVersion, criticFormat('verify').promptVersion]).toEqual(['critic-v1', 'critic-v2/verify']);
    expect(criticFormat('rubric').params).toEqual({ temperature: 0, max_tokens: 256 });
    expect(criticFormat('verify').params).toEqual({ temperature: 0, max_tokens: 2, logprobs: true, top_logprobs: 10 });
    expect([parseCriticVerdict('yes'), parseCriticVerdict(' **No**.'), parseCriticVerdict('Yes, it is new')]).toEqual([1, 0, 1]);
    expect([parseCriticVerdict('maybe'), parseCriticVerdict('noted'), parseCriticVerdict(''), parseCriticVerdict(null)]).toEqual([null, null, null, null]);
  });

  it('the unparsable share counts the critic calls made', () => {
    expect(
      criticUnparsableFigures([
        { rated: 3, unparsable: 1 },
        { rated: 1, unparsable: 0 },
      ]),
    ).toEqual({ criticUnparsable: 1, criticUnparsableShare: 0.25 });
    expect(criticUnparsableFigures([{ rated: 0, unparsable: 0 }])).toEqual({ criticUnparsable: 0, criticUnparsableShare: null });
  });

  it('the scripted critic reads the prompt: new value 9, raised 6, repeat 0, rejected 0, mean per step', () => {
    const msgs = (step: CriticInput['step']) =>
      criticFormat('rubric').messages({
        signature: 'def add(a, b):',
        goldDescription: 'Returns a + b.',
        before: [{ call: 'add(1, 2)', observation: '3', status: 'ran' }],
        step,
      });
    expect(scriptedCriticScore(msgs([{ call: 'add(2, 2)', observation: '4', status: 'ran' }]))).toBe(9);
    expect(scriptedCriticScore(msgs([{ call: 'add(1, 2)', observation: '3', status: 'ran' }]))).toBe(0);
    expect(scriptedCriticScore(msgs([{ call: "add(1, 'x')", observation: 'TypeError: ...', status: 'raised' }]))).toBe(6);
    expect(scriptedCriticScore(msgs([{ call: 'add(', observation: 'malformed', status: 'rejected' }]))).toBe(0);
    expect(
      scriptedCriticScore(
        msgs([
          { call: 'add(2, 2)', observation: '4', status: 'ran' },
          { call: 'add(', observation: 'malformed', status: 'rejected' },
        ]),
      ),
    ).toBe(5); // round((9 + 0) / 2)
    const reply = scriptedCriticReply('oracle', msgs([{ call: 'add(2, 2)', observation: '4', status: 'ran' }]));
    expect(parseCriticReward(reply?.content)).toBe(0.9);
    expect(reply?.content).toMatch(/^REWARD: 9\n.*scripted/);
    expect(parseCriticReward(scriptedCriticReply('null', msgs([{ call: 'add(2, 2)', observation: '4', status: 'ran' }]))?.content)).toBeNull();
    expect(scriptedCriticScore([{ role: 'system', content: 'something else' }])).toBeUndefined();
    // Asked in the verify format, the scripted critic says yes for a step worth 6 or more.
    const verify = (step: CriticInput['step']) =>
      scriptedCriticReply(
        'oracle',
        criticFormat('verify').messages({
          signature: 'def add(a, b):',
          goldDescription: 'Returns a + b.',
          before: [{ call: 'add(1, 2)', observation: '3', status: 'ran' }],
          step,
        }),
      )?.content;
    expect(parseCriticVerdict(verify([{ call: 'add(2, 2)', observation: '4', status: 'ran' }]))).toBe(1);
    expect(parseCriticVerdict(verify([{ call: 'add(1, 2)', observation: '3', status: 'ran' }]))).toBe(0);
  });
});

describe('rollouts for the trainer', () => {
  const stored = [
    { idx: 0, kind: 'system', call: null, observation: null },
    { idx: 1, kind: 'user', call: null, observation: null },
    { idx: 2, kind: 'assistant', call: null, observation: null },
    ran(3, '1, 2', '3'),
    ran(4, "1, 'x'", 'TypeError', false),
    { idx: 5, kind: 'assistant', call: null, observation: null },
    { idx: 6, kind: 'problem', call: { raw: 'add(' }, observation: { text: 'Error: malformed', executed: false } },
    { idx: 7, kind: 'assistant', call: null, observation: null },
    { idx: 8, kind: 'submit', call: { description: 'adds' }, observation: { text: 'submitted' } },
  ];

  it('exploration steps: calls per assistant step, the submitting step not rated', () => {
    const ex = explorationSteps(stored, 'add');
    expect(ex.map((s) => [s.idx, s.calls.map((c) => `${c.call}:${c.status}`), isRated(s)])).toEqual([
      [2, ['add(1, 2):ran', "add(1, 'x'):raised"], true],
      [5, ['add(:rejected'], true],
      [7, [], false],
    ]);
    expect(callsBefore(ex, 1).map((c) => c.call)).toEqual(['add(1, 2)', "add(1, 'x')"]);
  });

  it('one line per rollout: every assistant message a policy message with its step reward', () => {
    const messages = [{ role: 'system' }, { role: 'user' }, { role: 'assistant' }, { role: 'tool' }, { role: 'assistant' }];
    expect(rolloutLine('e1', 'm1', { messages }, [0.9, null], 3)).toMatchObject({
      id: 'e1',
      group: 'm1',
      policy_messages: [2, 4],
      rewards: { outcome: 3, steps: [0.9, null] },
    });
    expect(() => rolloutLine('e1', 'm1', { messages }, [0.9], 3)).toThrow(/2 assistant messages but 1 step rewards/);
  });

  it('turns cut at max_tokens are named on the line (length_cut), from the assistant steps stored finish reasons', () => {
    const messages = [{ role: 'system' }, { role: 'user' }, { role: 'assistant' }, { role: 'tool' }, { role: 'assistant' }];
    const cut = lengthCutMessages(messages, ['length', 'stop']);
    expect(cut).toEqual([2]);
    expect(lengthCutMessages(messages, ['stop', 'length', 'length'])).toEqual([4]); // a later step past the last message is ignored
    expect(rolloutLine('e1', 'm1', { messages }, [0.9, null], 3, cut)).toMatchObject({ policy_messages: [2, 4], length_cut: [2] });
    expect(rolloutLine('e1', 'm1', { messages }, [0.9, null], 3)).not.toHaveProperty('length_cut');
  });
});

describe('rollout outcomes: policy failures stay in their group at the minimum reward', () => {
  const row = (o: Partial<RolloutOutcomeRow> & { methodId: string; sample: number }): RolloutOutcomeRow => ({
    episodeId: `${o.methodId}/${o.sample}`,
    status: 'completed',
    endReason: 'submitted',
    error: null,
    hasDescription: true,
    judged: true,
    score: 3,
    codeMatchUnobserved: 0.5,
    ...o,
  });

  it('judged: score + weight x code match on the unseen inputs; no description or an outgrown context: the minimum; infrastructure: unjudged', () => {
    expect(rolloutVerdict(row({ methodId: 'm', sample: 0 }), 2)).toEqual({ kind: 'judged', reward: 4 });
    // no unseen input left (or the method excluded from code match): no code-match reward
    expect(rolloutVerdict(row({ methodId: 'm', sample: 0, codeMatchUnobserved: null }), 2)).toEqual({ kind: 'judged', reward: 3 });
    // a judge's score for the empty text does not matter: no description is the policy's failure
    expect(rolloutVerdict(row({ methodId: 'm', sample: 0, hasDescription: false, endReason: 'no_description_after_reask_unparsable', score: 4 }), 1)).toEqual({
      kind: 'policy_failure',
      reward: POLICY_FAILURE_REWARD,
      reason: 'no_description',
    });
    expect(rolloutVerdict(row({ methodId: 'm', sample: 0, hasDescription: false, judged: false, score: null }), 1).kind).toBe('policy_failure');
    const overflow = 'model local/qwen2.5-coder-0.5b: HTTP 400: 400 the request exceeds the available context size, try increasing it';
    expect(rolloutVerdict(row({ methodId: 'm', sample: 0, status: 'failed', endReason: 'error', error: overflow }), 1)).toEqual({
      kind: 'policy_failure',
      reward: POLICY_FAILURE_REWARD,
      reason: 'context_overflow',
    });
    const outage = 'ModelOutageTooLong: model local/qwen2.5-coder-0.5b unreachable for 600 s';
    expect(rolloutVerdict(row({ methodId: 'm', sample: 0, status: 'failed', endReason: 'error', error: outage }), 1)).toEqual({
      kind: 'unjudged',
      reason: 'episode_failed',
    });
    expect(rolloutVerdict(row({ methodId: 'm', sample: 0, status: 'cancelled' }), 1)).toEqual({ kind: 'unjudged', reason: 'cancelled' });
    expect(rolloutVerdict(row({ methodId: 'm', sample: 0, judged: false, score: null }), 1)).toEqual({ kind: 'unjudged', reason: 'not_judged' });
    expect(rolloutVerdict(row({ methodId: 'm', sample: 0, score: null }), 1)).toEqual({ kind: 'unjudged', reason: 'unparsable_score' });
  });

  it('a group keeps its policy failures (reward below its siblings) and is skipped whole when a rollout is unjudged; counts for the epoch', () => {
    const g = groupRollouts(
      [
        row({ methodId: 'a', sample: 0, score: 3, codeMatchUnobserved: 0 }),
        row({ methodId: 'a', sample: 1, hasDescription: false, endReason: 'no_description_empty', score: 5 }),
        row({ methodId: 'a', sample: 2, status: 'failed', endReason: 'error', error: 'exceed_context_size_error' }),
        row({ methodId: 'b', sample: 0, score: 4, codeMatchUnobserved: 0 }),
        row({ methodId: 'b', sample: 1, judged: false, score: null }),
      ],
      1,
    );
    expect(g.rollouts.map((r) => [r.row.methodId, r.reward, r.trained])).toEqual([
      ['a', 3, true],
      ['a', POLICY_FAILURE_REWARD, true],
      ['a', POLICY_FAILURE_REWARD, true],
      ['b', 4, false],
      ['b', null, false],
    ]);
    expect(g.figures).toEqual({
      policyFailures: 2,
      policyFailureReasons: { no_description: 1, context_overflow: 1 },
      unjudgedRollouts: 1,
      unjudgedReasons: { not_judged: 1 },
      skippedGroups: 1,
      skippedRollouts: 2,
    });
    // group a has variance now: its only description is pushed up, the failures down (dropped, it had none)
    const a = g.rollouts.filter((r) => r.trained).map((r) => r.reward!);
    const mean = a.reduce((x, y) => x + y, 0) / a.length;
    expect(a.map((r) => Math.sign(r - mean))).toEqual([1, -1, -1]);
  });
});

describe('rollout window sized to the engine', () => {
  it('a vLLM policy runs as many rollouts as its engine batches, at most the epoch’s', () => {
    expect(engineRolloutWindow(64, 16 * 8)).toBe(64);
    expect(engineRolloutWindow(64, 4 * 4)).toBe(16);
    expect(engineRolloutWindow(64, 0)).toBe(1);
    expect(DEFAULT_ROLLOUT_WINDOW).toBe(4); // llama.cpp policies (2 slots) keep the default
  });
});

describe('a rollout dropped alone drops its group', () => {
  it('not_as_served, no transcript or no policy message: the group is left out whole, the counts say why', () => {
    const r = wholeGroupLines([
      { group: 'a', line: 'a0' },
      { group: 'a', line: 'a1' },
      { group: 'b', line: 'b0' },
      { group: 'b', drop: 'not_as_served' },
      { group: 'b', line: 'b2' },
      { group: 'c', drop: 'no_transcript' },
      { group: 'c', line: 'c1' },
      { group: 'd', line: 'd0' },
      { group: 'd', drop: 'no_policy_message' },
      { group: 'e', line: 'e0' },
    ]);
    expect(r.lines).toEqual(['a0', 'a1', 'e0']);
    expect(r.dropped).toEqual({ not_as_served: 1, no_transcript: 1, no_policy_message: 1, group_dropped: 4 });
  });

  it('nothing dropped: every line, in order, no counts', () => {
    expect(
      wholeGroupLines([
        { group: 'a', line: 1 },
        { group: 'b', line: 2 },
        { group: 'a', line: 3 },
      ]),
    ).toEqual({ lines: [1, 2, 3], dropped: {} });
  });
});

describe('evaluation that counts', () => {
  const evalRow = (model: string, methodId: string, o: Partial<GrpoEvalRow> = {}): GrpoEvalRow => ({
    episodeId: `${model}/${methodId}`,
    methodId,
    source: 'src',
    model,
    setting: 'interactive',
    sample: 0,
    status: 'completed',
    endReason: 'submitted',
    judged: true,
    score: 3,
    unparsable: false,
    codeMatch: 0.5,
    codeMatchUnobserved: 0.5,
    statementCoverage: null,
    branchCoverage: null,
    diagnostics: { calls: 4, repeatedCalls: 1 },
    callsMade: 4,
    tokensIn: 0,
    tokensOut: 0,
    costUsd: 0,
    workflowId: null,
    uiLink: null,
    hasDescription: true,
    ...o,
  });

  it('every ended episode counts (a failed one scores 1), with intervals over methods and the checkpoint paired against the base', () => {
    const ck = 'ckpt:r-e1';
    const base = 'local/qwen2.5-coder-0.5b';
    const rows = [
      ...['m1', 'm2', 'm3', 'm4', 'm5', 'm6'].map((m, i) => evalRow(ck, m, { score: 4, codeMatchUnobserved: i % 2 ? 1 : 0.5 })),
      ...['m1', 'm2', 'm3', 'm4', 'm5'].map((m) => evalRow(base, m, { score: 3 })),
      // the base's sixth episode failed (not judged): it counts as a 1, not as missing
      evalRow(base, 'm6', {
        status: 'failed',
        endReason: 'error',
        judged: false,
        score: null,
        codeMatch: null,
        codeMatchUnobserved: null,
        hasDescription: false,
      }),
    ];
    const f = grpoEvalFigures('r-eval-e1', rows, ck, base);
    expect(f.counting).toBe('all');
    expect(f.base.meanScore).toBeCloseTo((5 * 3 + 1) / 6, 9);
    expect(f.base.failed).toBe(1);
    expect(f.base.described).toBeCloseTo(5 / 6, 9);
    expect(f.checkpoint.meanScore).toBe(4);
    expect(f.checkpoint.repeatedCallRate).toBeCloseTo(0.25, 9);
    expect(f.checkpoint.estimates!.score.n).toBe(6);
    expect(f.paired!.score).toMatchObject({ n: 6, wins: 6, ties: 0, losses: 0 });
    expect(f.paired!.score.mean).toBeCloseTo(1 + 2 / 6, 9);
    expect(f.paired!.score.lo).not.toBeNull();
    expect(f.paired!.score.lo!).toBeLessThanOrEqual(f.paired!.score.mean!);
  });

  it('since issue 23 the evaluation runs at the benchmark budgets and params (bench run with no flags); the old form kept the training ones', () => {
    const c = grpoConfig({ base: 'local/x', critic: 'local/x', methodsPerEpoch: 2, budgets: { maxCalls: 3 }, maxTokens: 96, evalLimit: 4 });
    const now = grpoEvalConfig(c, 'ckpt:x', true);
    expect(now).not.toHaveProperty('budgets');
    expect(now).not.toHaveProperty('params');
    expect(now).toMatchObject({ models: ['ckpt:x', c.base], settings: ['interactive'], limit: 4, judgeModel: c.judgeModel });
    expect(grpoEvalConfig({ ...c, allowUnqualifiedJudge: true }, 'ckpt:x', true).allowUnqualifiedJudge).toBe(true);
    expect(grpoEvalConfig(c, 'ckpt:x', false)).toMatchObject({ budgets: { maxCalls: 3 }, params: { temperature: 0, max_tokens: 96 } });
  });
});

describe('what training may use', () => {
  it('max_length defaults to the serving context; a longer one is refused', () => {
    expect(trainingMaxLength(8192, undefined)).toEqual({ maxLength: 8192 });
    expect(trainingMaxLength(8192, 1024)).toEqual({ maxLength: 1024 });
    expect(trainingMaxLength(4096, 8192)).toMatchObject({ error: expect.stringMatching(/longer than the base's serving context \(4096/) });
  });

  it('grpo train --methods goes through the split check: test-split methods refused, others must be in --split', () => {
    const splits = new Map([
      ['a', 'train'],
      ['t', 'test'],
      ['v', 'validation'],
    ]);
    expect(namedMethodsRefusal('grpo train', 'pau-v1', 'train', splits, ['a'], false)).toBeNull();
    expect(namedMethodsRefusal('grpo train', 'pau-v1', 'train', splits, ['a', 't'], false)).toMatch(
      /--methods t\) on the test split is refused.*--allow-test-split/,
    );
    expect(namedMethodsRefusal('grpo train', 'pau-v1', 'train', splits, ['a', 't'], true)).toBeNull();
    expect(namedMethodsRefusal('grpo train', 'pau-v1', 'train', splits, ['v'], false)).toMatch(/v \(validation\) is not in the train split of pau-v1/);
    expect(namedMethodsRefusal('grpo train', 'pau-v1', 'train', splits, ['zz'], false)).toMatch(/zz is not a method of the data set pau-v1/);
  });
});

describe('run configuration', () => {
  const config = grpoConfig({
    base: 'local/x',
    critic: 'local/x',
    methodsPerEpoch: 2,
    epochs: 3,
    budgets: { maxCalls: 2 },
    reward: 'aac',
    seed: 5,
    evalEvery: 2,
  });

  it('rollout seeds differ per rollout and epoch, not per run (a second run reuses the first epoch from the cache)', () => {
    const a = rolloutEpisodeInput('run-a', config, 0, 'local/x', 'm', 0);
    const b = rolloutEpisodeInput('run-b', config, 0, 'local/x', 'm', 0);
    expect(a.params?.seed).toBe(b.params?.seed);
    expect(a.episodeId).not.toBe(b.episodeId);
    const seeds = new Set([0, 1].flatMap((e) => [0, 1, 2].map((g) => rolloutSeed(config, e, 'm', g))));
    expect(seeds.size).toBe(6);
    expect(rolloutEpisodeInput('r', config, 1, 'ckpt:c', 'm', 1)).toMatchObject({ sample: 1001, model: 'ckpt:c', judge: { judgeModel: 'mock-oracle' } });
  });

  it('rollouts sample from the full distribution: the request params carry top_k 0, top_p 1, min_p 0 and the temperature', () => {
    const input = rolloutEpisodeInput('r', { ...config, sampling: ROLLOUT_SAMPLING, maxTokens: 64 }, 0, 'local/x', 'm', 0);
    // what chat() sends: the registry entry's defaults, then these (domain/llm/requestParams.ts)
    const sent = requestParams({ params: { temperature: 0, top_p: 0.9 } }, input.params);
    expect(sent).toMatchObject({ temperature: 1, top_k: 0, top_p: 1, min_p: 0, max_tokens: 64, seed: rolloutSeed(config, 0, 'm', 0) });
    // a run started before the field existed keeps the requests it recorded
    expect(rolloutEpisodeInput('r', config, 0, 'local/x', 'm', 0).params).not.toHaveProperty('top_k');
  });

  it("the update's spec carries the rollouts' temperature, the trainer's log-prob temperature", () => {
    const input = rolloutEpisodeInput('r', { ...config, temperature: 0.7 }, 0, 'local/x', 'm', 0);
    const spec = grpoTrainerSpec({ ...config, temperature: 0.7 }, 0, '/r.jsonl', '/b.gguf', null);
    expect(spec.temperature).toBe(input.params?.temperature);
    expect(spec.temperature).toBe(0.7);
  });

  it('reward choices are the trainer advantage modes of the same name; evaluation every K epochs and after the last', () => {
    expect(advantageOf('outcome')).toEqual({ mode: 'outcome', scale: 'none' });
    expect(advantageOf('aac')).toEqual({ mode: 'aac', step_weight: 1, scale: 'none' });
    expect(advantageOf('mix')).toEqual({ mode: 'mix', step_weight: 1, outcome_weight: 1, scale: 'none' });
    // the std with its floor is named in the spec; a floor without the std would divide by nothing
    expect(advantageOf('mix', 'std', 0.5)).toMatchObject({ scale: 'std', std_floor: 0.5 });
    expect(advantageOf('mix', 'none', 0.5)).not.toHaveProperty('std_floor');
    expect(DEFAULT_GRPO_REWARD).toBe('mix');
    expect([0, 1, 2].map((e) => shouldEvaluate(config, e))).toEqual([false, true, true]);
  });

  it("the update's defaults: lr 5e-4, LoRA on every linear layer, and from the second epoch the previous optimiser state", () => {
    const first = grpoTrainerSpec(config, 0, '/r.jsonl', '/b.gguf', null);
    expect(first.lr).toBe(GRPO_LR);
    expect(first.lora).toEqual(GRPO_LORA);
    expect(first).not.toHaveProperty('init_optimizer');
    const second = grpoTrainerSpec(config, 1, '/r.jsonl', '/b.gguf', '/jobs/e1/checkpoints/step-000004');
    expect(second).toMatchObject({ init_adapter: '/jobs/e1/checkpoints/step-000004', init_optimizer: true });
    // the adapter's own LoRA config wins when training goes on from it
    expect(second).not.toHaveProperty('lora');
    expect(grpoTrainerSpec({ ...config, lr: 2e-4, loraRank: 4 }, 0, '/r', '/b', null)).toMatchObject({ lr: 2e-4, lora: { rank: 4, alpha: 8 } });
  });

  it('samples methods stratified by source, seeded, different per epoch', () => {
    const methods = [...['a1', 'a2', 'a3', 'a4'].map((id) => ({ id, source: 'a' })), ...['b1', 'b2'].map((id) => ({ id, source: 'b' }))];
    const s = sampleStratified(methods, 4, 1, 0);
    expect(s).toHaveLength(4);
    expect(s.filter((id) => id.startsWith('b'))).toHaveLength(2);
    expect(sampleStratified(methods, 4, 1, 0)).toEqual(s);
    expect(sampleStratified(methods, 10, 1, 0)).toHaveLength(6);
    const perEpoch = new Set([0, 1, 2, 3].map((e) => sampleStratified(methods, 2, 1, e).join(',')));
    expect(perEpoch.size).toBeGreaterThan(1);
  });
});

describe('report helpers', () => {
  it('best and worst group by mean reward; a chart skips missing points', () => {
    const e = (epoch: number, groups: [string, (number | null)[]][]) =>
      ({ epoch, groups: groups.map(([methodId, rewards]) => ({ methodId, rewards, criticMeans: [] })) }) as never;
    expect(
      bestAndWorstGroups([
        e(0, [
          ['m1', [1, 2]],
          ['m2', [4, null]],
        ]),
        e(1, [['m3', [3, 3]]]),
      ]),
    ).toEqual([
      { label: 'best', epoch: 0, methodId: 'm2', meanReward: 4 },
      { label: 'worst', epoch: 0, methodId: 'm1', meanReward: 1.5 },
    ]);
    const svg = lineChartSvg('t', [{ name: 's', values: [1, null, 3] }], 3);
    expect((svg.match(/<circle/g) ?? []).length).toBe(2);
  });

  it('the report links each evaluation run, gives its paired difference with the base, the policy-failure counts and other reward modes paired', () => {
    const ck = 'ckpt:grpo-r-e1';
    const base = 'local/qwen2.5-coder-0.5b';
    const row = (model: string, methodId: string, score: number) => ({
      ...episodeRow({
        episodeId: `${model}/${methodId}`,
        methodId,
        model,
        endReason: 'submitted',
        score,
        codeMatch: 0,
        codeMatchUnobserved: 0,
        statementCoverage: null,
        branchCoverage: null,
        callsMade: 3,
        tokensIn: 0,
        tokensOut: 0,
      }),
      hasDescription: true,
    });
    const ev = grpoEvalFigures('r-eval-e1', [row(ck, 'm1', 4), row(ck, 'm2', 3), row(base, 'm1', 2), row(base, 'm2', 3)], ck, base);
    const outcomes = {
      policyFailures: 2,
      policyFailureReasons: { no_description: 2 },
      unjudgedRollouts: 1,
      unjudgedReasons: { not_judged: 1 },
      skippedGroups: 1,
      skippedRollouts: 3,
    };
    expect(outcomeCounts({ outcomes })).toBe('2 (no_description 2) / 1 (not_judged 1) / 1');
    const epoch = grpoEpoch({ policyModel: base, checkpointId: 'grpo-r-e1', outcomes, eval: ev });
    const input: GrpoReportInput = {
      runId: 'r',
      status: 'completed',
      config: grpoConfig({ base, critic: base, judgeModel: 'j', group: 4 }),
      epochs: [epoch],
      examples: [],
      generatedAt: 'now',
      comparisons: [{ otherRunId: 'r-aac', otherReward: 'aac', epoch: 0, evalRunIds: ['r-eval-e1', 'r-aac-eval-e1'], paired: ev.paired! }],
    };
    const html = renderGrpoReport(input);
    expect(html).toContain('Validation (benchmark runs)');
    expect(html).toContain('npm run pau -- report r-eval-e1');
    expect(html).toContain('+1.00 [0.00, 2.00] 1/1/0'); // ckpt - base on score, paired by method
    expect(html).toContain('2 (no_description 2) / 1 (not_judged 1) / 1');
    expect(html).toContain('Against other reward modes');
    expect(html).toContain('<code>r-aac</code> (aac)');
    expect(html).toContain('<th>served by ckpt / base</th>');
    expect(html).toMatch(/<td>0 \/ 0<\/td><td>-<\/td><td>not measured<\/td><\/tr>/); // recorded before the stacks and the gate were: said as such
    // Each paired difference one row with its power: score differences [2, 0], σ_d = √2 = 1.41,
    // MDE = 2.8016 · 1.41 / √2 = 2.80 > 1.00 (not resolved), (2.8016 · 1.41 / 0.13)² = 928.9 methods for +0.13;
    // fail rate [-1, 0]: σ_d 70.7 points, MDE 140.1 points, no paper effect.
    expect(html).toContain('Checkpoint minus base, paired by method');
    expect(html).toContain(
      '<td>1</td><td>score (1-5)</td><td>+1.00 [0.00, 2.00] 1/1/0</td><td>2</td><td>0</td><td>1.41</td><td>2.80 (not resolved at this n)</td><td>929 for ±0.13</td>',
    );
    expect(html).toMatch(
      /<td>fail rate \(&lt;=2\)<\/td><td>-50\.0% \[[^\]]+\] 1\/1\/0<\/td><td>2<\/td><td>0<\/td><td>70\.7 pts<\/td><td>140\.1 pts \(not resolved at this n\)<\/td><td>-<\/td>/,
    );
    expect(html).toContain(
      '<td>r-eval-e1 vs r-aac-eval-e1</td><td>score (1-5)</td><td>+1.00 [0.00, 2.00] 1/1/0</td><td>2</td><td>0</td><td>1.41</td><td>2.80 (not resolved at this n)</td><td>929 for ±0.13</td>',
    );
    const power = " (σ_d 1.41, MDE (80 %) 2.80 (not resolved at this n), n for paper's effect 929 for ±0.13)";
    expect(grpoEvalLine(ev)).toContain(`ckpt - base +1.00 [0.00, 2.00] 1/1/0${power};`);
    expect(renderGrpoText(input)).toContain(`epoch 1: r - r-aac (aac): score +1.00 [0.00, 2.00] 1/1/0${power}, code match (unseen)`);
    // An evaluation stored before σ_d: the differences as they were, the power unknown.
    const before = { ...ev, paired: { ...ev.paired!, score: { ...ev.paired!.score, sd: undefined } } };
    expect(renderGrpoReport({ ...input, epochs: [{ ...epoch, eval: before }], comparisons: [] })).toContain(
      '<td>+1.00 [0.00, 2.00] 1/1/0</td><td>2</td><td>0</td><td>-</td><td>-</td><td>-</td>',
    );
    expect(grpoEvalLine(before)).toContain('ckpt - base +1.00 [0.00, 2.00] 1/1/0; code match');
    // The stack of each arm: one stack said once; two (allowed by the run) both, marked.
    const one = renderGrpoReport({
      ...input,
      epochs: [{ ...epoch, eval: { ...ev, stacks: { checkpoint: 'vLLM Qwen/Qwen3-8B', base: 'vLLM Qwen/Qwen3-8B' } } }],
    });
    expect(one).toContain('<td>vLLM Qwen/Qwen3-8B</td><td>not measured</td></tr>');
    const two = { ...ev, stacks: { checkpoint: 'vLLM Qwen/Qwen3-8B', base: 'llama.cpp qwen3-8b (GGUF)', mixedAllowed: true } };
    expect(renderGrpoReport({ ...input, epochs: [{ ...epoch, eval: two }] })).toContain(
      '<td>vLLM Qwen/Qwen3-8B vs llama.cpp qwen3-8b (GGUF) (DIFFERENT STACKS, --allow-mixed-stacks)</td>',
    );
    expect(grpoEvalLine(two)).toMatch(/; served by vLLM Qwen\/Qwen3-8B vs llama\.cpp qwen3-8b \(GGUF\) \(DIFFERENT STACKS, --allow-mixed-stacks\)$/);
    expect(grpoEvalLine(ev)).not.toContain('served by');
    // A checkpoint below the gate: its paired rows (against the base and other arms) read inconclusive
    const still = policyMovedGate({ mean: 0.0004, tokens: 500 }, { compared: 2, departed: 0 });
    const gated = renderGrpoReport({
      ...input,
      epochs: [{ ...epoch, eval: { ...ev, gate: still } }],
      comparisons: [{ ...input.comparisons![0]!, gates: [null, still] }],
    });
    expect(gated).toContain('<td>1 (inconclusive: the policy did not move)</td><td>score (1-5)</td>');
    expect(gated).toContain('<td>1 (inconclusive: the policy did not move)</td><td><code>r-aac</code> (aac)</td>');
    expect(gated).toContain('inconclusive: the policy did not move (KL 0.0004 nats/token over 500 agent tokens; 0 of 2 episodes');
    expect(renderGrpoText({ ...input, epochs: [{ ...epoch, eval: { ...ev, gate: still } }] })).toContain('gate: inconclusive: the policy did not move');
    // A judge with no card: the validation's scores and code match are withheld everywhere, as in a benchmark report.
    const uncarded = {
      ...input,
      judgeCard: { status: 'missing' as const, judgeModel: 'j', coderModel: 'j', command: 'npm run pau -- calibrate judge --judge j', forced: false },
    };
    const u = renderGrpoReport(uncarded);
    expect(u).toContain('Scores withheld: no judge card for judge j');
    expect(u).not.toContain('score (1-5)');
    expect(u).not.toContain('code match (unseen)</td>');
    expect(u).not.toContain('+1.00 [0.00, 2.00]');
    expect(u).not.toContain('validation score (1-5)');
    expect(u).toMatch(/<td>withheld<\/td><td>withheld<\/td>/);
    const ut = renderGrpoText(uncarded);
    expect(ut).toContain('judge card: none yet for judge j, code writer j');
    expect(ut).toContain('score withheld; code match withheld;');
    expect(ut).toContain('epoch 1: r - r-aac (aac): withheld (see the judge card)');
    expect(ut).not.toContain('+1.00 [0.00, 2.00]');
  });
});
