// The critic card's rules: step classes (new, repeated, uninformative), the measures and every check, the
// deterministic pick of recorded episodes (constructed repeats only where too few have both classes), the
// scripted critic reading novelty from its prompt, and the GRPO report's critic card section.
import { describe, expect, it } from 'vitest';
import {
  argumentsOf,
  buildCriticCard,
  classifyCalls,
  constructedRepeat,
  criticAbove,
  criticCardChecks,
  criticCardLines,
  criticCardMeasures,
  DEFAULT_CRITIC_THRESHOLDS,
  failedCriticChecks,
  inputClass,
  outcomeKey,
  pickCriticEpisodes,
  stepClass,
  type CriticCardEpisode,
  type CriticCardStatus,
  type StepClass,
} from '../../domain/training/criticCard';
import type { CriticCall } from '../../domain/training/criticPrompt';
import { criticFormat } from '../../domain/training/criticFormats';
import { scriptedCriticScore } from '../../domain/training/scriptedCritic';
import { criticCardSection, criticCardText } from '../../domain/trainingReport/criticCardView';
import { cardLine, cardProgress } from '../../scripts/client/cardWatch';
import { lineSink, watchWorkflow } from '../../scripts/client/watchWorkflow';

const ran = (call: string, observation: string): CriticCall => ({ call, observation, status: 'ran' });
const raised = (call: string, observation: string): CriticCall => ({ call, observation, status: 'raised' });
const rejected = (call: string): CriticCall => ({ call, observation: 'malformed arguments', status: 'rejected' });

describe('step classes', () => {
  it('reads the arguments, input class and outcome of a call', () => {
    expect(argumentsOf('f(1, [2, 3])')).toBe('1, [2, 3]');
    expect(argumentsOf('f()')).toBe('');
    expect(argumentsOf('not a call')).toBe('not a call');
    expect(inputClass('1, [2, 3]')).toBe('int,list[int]');
    expect(inputClass("'a', []")).toBe('str,list[?]');
    expect(inputClass('1, k=None')).toBe('int,k=None');
    expect(inputClass('x +')).toBe('?x+');
    expect(outcomeKey(ran('f(1)', '3'))).toBe('=3');
    expect(outcomeKey(raised('f(1)', 'ValueError: bad value 1'))).toBe('!ValueError');
    expect(outcomeKey(rejected('f('))).toBeNull();
  });

  it('repeated: the same arguments (by inputKey, spacing aside); uninformative: a seen class and a seen outcome; else new', () => {
    const before = [ran('f(1, 2)', '3'), raised("f('a', 2)", 'TypeError: no')];
    expect(classifyCalls(before, [ran('f(1,2)', '3')])).toEqual(['repeated']);
    expect(classifyCalls(before, [ran('f(2, 1)', '3')])).toEqual(['uninformative']); // int,int seen; 3 seen
    expect(classifyCalls(before, [ran('f(2, 2)', '4')])).toEqual(['new']); // a value never seen
    expect(classifyCalls(before, [ran('f(1.5, 1.5)', '3')])).toEqual(['new']); // float,float never probed
    expect(classifyCalls(before, [raised("f('b', 3)", 'TypeError: other message')])).toEqual(['uninformative']);
    expect(classifyCalls(before, [raised('f(0, 0)', 'ZeroDivisionError: x')])).toEqual(['new']);
    expect(classifyCalls(before, [rejected('f(')])).toEqual([null]);
    // A step's own earlier calls count as earlier; a rejected call is not an earlier call.
    expect(classifyCalls([rejected('f(5, 5)')], [ran('f(5, 5)', '10'), ran('f(5, 5)', '10')])).toEqual(['new', 'repeated']);
  });

  it('a step is new if any call is, repeated if every classed call is, uninformative otherwise; none without a classed call', () => {
    expect(stepClass(['repeated', 'new', null])).toBe('new');
    expect(stepClass(['repeated', null, 'repeated'])).toBe('repeated');
    expect(stepClass(['repeated', 'uninformative'])).toBe('uninformative');
    expect(stepClass([null])).toBeNull();
    expect(stepClass([])).toBeNull();
  });

  it('the constructed repeat is the first call that ran, with its recorded outcome', () => {
    expect(constructedRepeat([rejected('f('), raised('f(0)', 'ValueError: x'), ran('f(1)', '1')])).toEqual(raised('f(0)', 'ValueError: x'));
    expect(constructedRepeat([rejected('f(')])).toBeNull();
  });
});

const ep = (id: string, steps: [StepClass, number | null][], constructed = false): CriticCardEpisode => ({
  episodeId: id,
  methodId: `m-${id}`,
  runId: 'r',
  constructed,
  steps: steps.map(([k, reward], idx) => ({ idx, class: k, reward })),
});

describe('critic card measures and checks', () => {
  it('above means at least the margin (two points of ten) on the integer scale', () => {
    expect(criticAbove(0.4, 0.2)).toBe(true);
    expect(criticAbove(0.3, 0.2)).toBe(false);
    expect(criticAbove(0.9, 0.7)).toBe(true);
    expect(criticAbove(0.2, 0.9)).toBe(false);
  });

  it('pairs within an episode, each episode weighted equally; mean per class; the gap; parsable share', () => {
    const es = [
      ep('a', [
        ['new', 0.9],
        ['new', 0.3],
        ['repeated', 0.2],
      ]), // pairs 0.9>0.2 yes, 0.3>0.2 no: 1/2
      ep('b', [
        ['new', 0.9],
        ['uninformative', 0.4],
        ['repeated', null],
      ]), // 1/1
      ep('c', [['new', 0.9]], true), // no pair
    ];
    const m = criticCardMeasures(es);
    expect(m).toMatchObject({ episodes: 3, constructed: 1, paired: 2, pairs: 3, unparsable: 1, steps: { new: 4, repeated: 2, uninformative: 1 } });
    expect(m.pairsOrdered).toBeCloseTo(0.75); // (1/2 + 1) / 2, not 2/3 over pooled pairs
    expect(m.newAboveRepeated).toBeCloseTo(0.5);
    expect(m.newAboveUninformative).toBe(1);
    expect(m.meanByClass.new).toBeCloseTo(0.75);
    expect(m.meanByClass.repeated).toBeCloseTo(0.2);
    expect(m.meanByClass.uninformative).toBeCloseTo(0.4);
    expect(m.meanGap).toBeCloseTo(0.75 - 0.3);
    expect(m.parsableShare).toBeCloseTo(6 / 7);
    expect(criticCardMeasures([])).toMatchObject({ episodes: 0, pairsOrdered: null, meanGap: null, parsableShare: null });
  });

  it('each check passes at its threshold and fails below it', () => {
    const good = criticCardMeasures(
      Array.from({ length: 20 }, (_, i) =>
        ep(`e${i}`, [
          ['new', 0.9],
          ['repeated', 0.2],
        ]),
      ),
    );
    const checks = criticCardChecks(good);
    expect(checks.map((c) => c.pass)).toEqual([true, true, true, true]);
    expect(checks.map((c) => c.threshold)).toEqual(['>= 20', '>= 80%', '>= 0.20', '>= 90%']);
    const fails = (patch: Partial<typeof good>) => criticCardChecks({ ...good, ...patch }).flatMap((c, i) => (c.pass ? [] : [i]));
    expect(fails({ paired: 19 })).toEqual([0]);
    expect(fails({ pairsOrdered: 0.8 })).toEqual([]);
    expect(fails({ pairsOrdered: 0.79 })).toEqual([1]);
    expect(fails({ meanGap: 0.2 })).toEqual([]);
    expect(fails({ meanGap: 0.19 })).toEqual([2]);
    expect(fails({ parsableShare: 0.89 })).toEqual([3]);
    expect(fails({ pairsOrdered: null, meanGap: null, parsableShare: null })).toEqual([1, 2, 3]);
    expect(DEFAULT_CRITIC_THRESHOLDS).toEqual({ minEpisodes: 20, pairsOrdered: 0.8, meanGap: 0.2, parsable: 0.9 });
  });

  it('a card that cannot tell a repeat from a probe is not qualified, and says which checks failed', () => {
    const flat = Array.from({ length: 20 }, (_, i) =>
      ep(`e${i}`, [
        ['new', 0.5],
        ['repeated', 0.5],
      ]),
    );
    const key = { cardKey: 'k', criticModel: 'c', criticParams: {}, promptVersion: 'critic-v1', dataset: 'd', split: 'validation', runId: null };
    const card = buildCriticCard(key, flat, { computedAt: '2026-12-04T00:00:00Z', workflowId: null });
    expect(card.qualified).toBe(false);
    expect(failedCriticChecks(card)).toEqual([
      'new step above the other by 0.2 (share of pairs, episodes weighted equally): 0% (needs >= 80%)',
      'mean reward new - repeated/uninformative: 0.00 (needs >= 0.20)',
    ]);
    const lines = criticCardLines(card);
    expect(lines[0]).toBe('critic card: critic c NOT QUALIFIED (d/validation, benchmark runs, 20 episodes, 20 pairs; prompt critic-v1; 2026-12-04)');
    expect(lines.join('\n')).not.toContain('appended a repeat');
    const constructed = buildCriticCard(key, [ep('x', [['new', 0.9]], true)], { computedAt: '2026-12-04', workflowId: null });
    expect(criticCardLines(constructed).join('\n')).toContain('1 of 1 episodes recorded no repeated or uninformative step: the card appended a repeat');
  });
});

describe('picking recorded episodes', () => {
  const cand = (episodeId: string, methodId: string, classes: StepClass[]) => ({ episodeId, methodId, runId: 'r', classes });
  it('round-robin over methods, natural pairs first, constructed repeats only to fill; none without a new step', () => {
    const cs = [
      cand('e3', 'b', ['new', 'repeated']),
      cand('e1', 'a', ['new', 'uninformative']),
      cand('e2', 'a', ['new', 'repeated']),
      cand('e4', 'c', ['new', 'new']),
      cand('e5', 'c', ['repeated']),
      cand('e6', 'd', []),
    ];
    expect(pickCriticEpisodes(cs, 2).map((p) => [p.episodeId, p.construct])).toEqual([
      ['e1', false],
      ['e3', false],
    ]);
    expect(pickCriticEpisodes(cs, 10).map((p) => [p.episodeId, p.construct])).toEqual([
      ['e1', false],
      ['e3', false],
      ['e2', false],
      ['e4', true],
    ]);
    expect(pickCriticEpisodes([...cs].reverse(), 10)).toEqual(pickCriticEpisodes(cs, 10));
  });
});

describe('the scripted critic reads novelty from its prompt', () => {
  const score = (before: CriticCall[], step: CriticCall[]) =>
    scriptedCriticScore(criticFormat().messages({ signature: 'def f(a, b):', goldDescription: 'Returns a + b.', before, step }));
  it('new value 9, new exception 6, uninformative 2, repeat 0, rejected 0', () => {
    const before = [ran('f(1, 2)', '3'), raised("f('a', 1)", 'TypeError: no')];
    expect(score(before, [ran('f(2, 2)', '4')])).toBe(9);
    expect(score(before, [raised('f(None, 1)', 'TypeError: no')])).toBe(6); // None,int never probed
    expect(score(before, [ran('f(2, 1)', '3')])).toBe(2);
    expect(score(before, [ran('f(1,2)', '3')])).toBe(0);
    expect(score(before, [rejected('f(')])).toBe(0);
    expect(score([], [ran('f(1, 2)', '3'), ran('f(1, 2)', '3')])).toBe(5); // round((9 + 0) / 2)
  });
});

describe('the GRPO report shows the critic card', () => {
  const card = buildCriticCard(
    { cardKey: 'k', criticModel: 'mock-oracle', criticParams: {}, promptVersion: 'critic-v1', dataset: 'd', split: 'validation', runId: 'bench-1' },
    Array.from({ length: 20 }, (_, i) =>
      ep(`e${i}`, [
        ['new', 0.9],
        ['repeated', 0.2],
      ]),
    ),
    { computedAt: '2026-12-04T00:00:00Z', workflowId: null },
  );
  it('qualified, unqualified (failed checks), missing (the command), absent (an older report)', () => {
    const q: CriticCardStatus = { status: 'qualified', card };
    expect(criticCardSection(q)).toContain('<div class="card ok"><h2>Critic card</h2><p>critic mock-oracle QUALIFIED (d/validation, run bench-1, 20 episodes');
    expect(criticCardSection(q)).toContain('<td>new step above the other by 0.2 (share of pairs, episodes weighted equally)</td><td>100%</td>');
    expect(criticCardText(q)[0]).toMatch(/^critic card: critic mock-oracle QUALIFIED/);
    const u: CriticCardStatus = { status: 'unqualified', card: { ...card, qualified: false }, failed: ['x'] };
    expect(criticCardSection(u)).toContain('did not qualify');
    const missing: CriticCardStatus = { status: 'missing', criticModel: 'c', command: 'npm run pau -- calibrate critic --critic c --dataset d' };
    expect(criticCardSection(missing)).toContain('<code>npm run pau -- calibrate critic --critic c --dataset d</code>');
    expect(criticCardText(missing)).toEqual(['critic card: none yet for critic c; compute it: npm run pau -- calibrate critic --critic c --dataset d']);
    expect(criticCardText(undefined)).toEqual(['critic card: none attached to this report (stored before critic cards)']);
  });
});

describe('the card watcher (calibrate judge and calibrate critic)', () => {
  it('draws a line for each new count, with the ETA from the mean time per item, and resolves as the workflow does', async () => {
    const counts = [null, 0, 1, 1, 2];
    let i = 0;
    const seen: string[] = [];
    let finish: (v: string) => void = () => undefined;
    const result = new Promise<string>((r) => (finish = r));
    // The card's workflow ends once every count has been read.
    const read = async () => {
      const c = counts[Math.min(i++, counts.length - 1)]!;
      if (i === counts.length) finish('done');
      return c;
    };
    const out = watchWorkflow({ result: () => result }, cardLine(read, 4, 'episodes'), {
      out: lineSink((l) => seen.push(l)),
      pollMs: { tty: 5, plain: 5 },
      plainMinIntervalMs: 0,
    });
    expect(await out).toBe('done');
    expect(seen).toHaveLength(3); // 0, 1, 2: a repeated count and the null before the row exists draw nothing
    expect(seen[0]).toMatch(/^episodes 0\/4 {2}\d+ s$/); // no ETA before the first item
    expect(seen[2]).toMatch(/^episodes 2\/4 {2}\d+ s {2}ETA \d+ s$/);
  });

  it('a resumed card: the total and resumed count come from the workflow, and the ETA only from items recorded now', () => {
    let now = 1_000;
    const progress = cardProgress(5, () => now); // 5: what the caller asked for; the workflow's total wins
    now = 3_000;
    // 20 recorded by an earlier run say nothing of the time per method now.
    expect(progress({ done: 20, resumed: 20, total: 39 })).toEqual({ done: 20, total: 39, seconds: 2, etaSeconds: null });
    now = 11_000;
    // One method in 10 s, 18 left: 18 times the elapsed time, not 18/21 of it.
    expect(progress({ done: 21, resumed: 20, total: 39 })).toEqual({ done: 21, total: 39, seconds: 10, etaSeconds: 180 });
    expect(progress({ done: 21, resumed: 20, total: 39 })).toBeNull(); // the count did not move
    expect(progress(null)).toBeNull();
  });
});
