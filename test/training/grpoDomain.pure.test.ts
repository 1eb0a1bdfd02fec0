// The pure parts of AAC-GRPO: the critic's prompt round trip through the scripted critic, its reward parser,
// exploration steps from stored steps, the trainer's rollout line, seeds and method sampling.
import { describe, expect, it } from 'vitest';
import { requestParams } from '../../domain/llm/requestParams';
import { lengthCutMessages } from '../../domain/training/sftData';
import { buildCriticMessages, parseCriticReward } from '../../domain/training/criticPrompt';
import { scriptedCriticReply, scriptedCriticScore } from '../../domain/training/scriptedCritic';
import { callsBefore, explorationSteps, isRated, rolloutLine } from '../../domain/training/grpoRollouts';
import {
  advantageOf,
  criticUnparsableFigures,
  DEFAULT_GRPO_REWARD,
  type GrpoConfig,
  ROLLOUT_SAMPLING,
  rolloutEpisodeInput,
  rolloutSeed,
  sampleStratified,
  shouldEvaluate,
} from '../../domain/training/grpo';
import { bestAndWorstGroups, lineChartSvg } from '../../domain/training/grpoReport';

const ran = (idx: number, args: string, text: string, ok = true) => ({
  idx,
  kind: 'call',
  call: { arguments: args },
  observation: { text, executed: true, result: { ok } },
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
    const [system, user] = buildCriticMessages({ signature: 'def f(x)', goldDescription: 'g', before: [], step: [] });
    expect(system?.content).toMatch(/reward FIRST/);
    expect(user?.content).toMatch(/`REWARD: n` first/);
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

  it('the scripted critic reads the prompt: new value 9, raised 6, repeat 2, rejected 0, mean per step', () => {
    const msgs = (step: Parameters<typeof buildCriticMessages>[0]['step']) =>
      buildCriticMessages({
        signature: 'def add(a, b):',
        goldDescription: 'Returns a + b.',
        before: [{ call: 'add(1, 2)', observation: '3', status: 'ran' }],
        step,
      });
    expect(scriptedCriticScore(msgs([{ call: 'add(2, 2)', observation: '4', status: 'ran' }]))).toBe(9);
    expect(scriptedCriticScore(msgs([{ call: 'add(1, 2)', observation: '3', status: 'ran' }]))).toBe(2);
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

describe('run configuration', () => {
  const config = {
    base: 'local/x',
    critic: 'local/x',
    judgeModel: 'mock-oracle',
    dataset: 'd',
    split: 'train',
    methodsPerEpoch: 2,
    group: 2,
    epochs: 3,
    budgets: { maxCalls: 2 },
    temperature: 1,
    reward: 'aac',
    codeMatchWeight: 1,
    seed: 5,
    evalEvery: 2,
    evalSplit: 'validation',
  } satisfies GrpoConfig;

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

  it('reward choices map to the trainer advantage modes; evaluation every K epochs and after the last', () => {
    expect(advantageOf('outcome')).toEqual({ mode: 'outcome' });
    expect(advantageOf('aac')).toEqual({ mode: 'aac', step_weight: 1, outcome_weight: 0, step_aggregate: 'mean', final_outcome: true });
    expect(advantageOf('mix')).toEqual({ mode: 'aac', step_weight: 1, outcome_weight: 1, step_aggregate: 'mean', final_outcome: true });
    expect(DEFAULT_GRPO_REWARD).toBe('mix');
    expect([0, 1, 2].map((e) => shouldEvaluate(config, e))).toEqual([false, true, true]);
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
});
