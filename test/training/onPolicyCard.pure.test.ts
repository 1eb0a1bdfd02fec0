// The on-policy critic card's pure parts (domain/training/onPolicyCard.ts): the critics it scores, the swap of
// privileged information, the facts of a rollout, every measure worked by hand on five rollouts of two methods,
// the checks against the thresholds and the free rule, the card's text; and the free rule itself
// (criticCard.ts, freeRuleScore), which the scripted critic answers with.
import { describe, expect, it } from 'vitest';
import { freeRuleScore } from '../../domain/training/criticCard';
import type { CriticCall } from '../../domain/training/criticPrompt';
import {
  DEFAULT_ON_POLICY_THRESHOLDS,
  durationText,
  FREE_RULE,
  onPolicyCardCommand,
  onPolicyCardKey,
  onPolicyCardLines,
  onPolicyChecks,
  onPolicyCritics,
  onPolicyMeasures,
  onPolicyRunId,
  onPolicyTable,
  type OnPolicyCriticCard,
  type OnPolicyRolloutConfig,
  type OnPolicyRolloutFacts,
  type OnPolicyRolloutRatings,
  type OnPolicyStepRating,
  rolloutCodeMatch,
  rolloutFacts,
  scoreOnPolicyCritics,
  swapPartners,
} from '../../domain/training/onPolicyCard';

const ran = (call: string, observation: string): CriticCall => ({ call, observation, status: 'ran' });
const raised = (call: string, observation: string): CriticCall => ({ call, observation, status: 'raised' });

describe('the free rule', () => {
  it('scores a step from the transcript alone: new value 9, raised 6, uninformative 2, repeat 0, rejected 0; the mean, rounded', () => {
    const first = [ran('f(5)', '1')];
    expect(freeRuleScore([], first)).toBe(9);
    expect(freeRuleScore(first, [ran('f(5)', '1')])).toBe(0); // the same arguments again
    expect(freeRuleScore(first, [ran('f(7)', '1')])).toBe(2); // an int again, a 1 again
    expect(freeRuleScore(first, [raised('f("a")', 'TypeError: bad')])).toBe(6);
    expect(freeRuleScore(first, [{ call: 'f(1, 2, 3)', observation: 'too many', status: 'rejected' }])).toBe(0);
    // a new value (9) and a repeat (0) in one step: 4.5, rounded to 5
    expect(freeRuleScore(first, [ran('f(-2)', '-1'), ran('f(5)', '1')])).toBe(5);
    expect(freeRuleScore(first, [])).toBe(0);
  });
});

describe('the critics of a card and the swap', () => {
  it('exec and the free rule always, then each model once in each format asked for', () => {
    expect(onPolicyCritics(['local/a', 'exec', 'local/a', 'local/b'], ['rubric', 'verify', 'rubric'])).toEqual([
      { kind: 'exec' },
      { kind: 'rule' },
      { kind: 'model', model: 'local/a', format: 'rubric' },
      { kind: 'model', model: 'local/a', format: 'verify' },
      { kind: 'model', model: 'local/b', format: 'rubric' },
      { kind: 'model', model: 'local/b', format: 'verify' },
    ]);
    expect(onPolicyCritics([], ['verify'])).toEqual([{ kind: 'exec' }, { kind: 'rule' }]);
  });

  it("each method borrows the next one's privileged information (the last the first's); none with one method", () => {
    expect([...swapPartners(['x', 'y', 'z'])]).toEqual([
      ['x', 'y'],
      ['y', 'z'],
      ['z', 'x'],
    ]);
    expect(swapPartners(['x']).size).toBe(0);
  });

  const config: OnPolicyRolloutConfig = {
    base: 'local/qwen2.5-coder-0.5b',
    judgeModel: 'local/qwen2.5-coder-1.5b',
    dataset: 'pau-v1',
    split: 'train',
    methodsPerEpoch: 20,
    group: 4,
    budgets: { maxCalls: 4 },
    temperature: 1,
    maxTokens: 192,
    seed: 7,
  };

  it('one rollout run per rollout config, whatever the window; its key and the command that computes a card', () => {
    const id = onPolicyRunId(config);
    expect(id).toMatch(/^critic-card-[0-9a-f]{12}$/);
    expect(onPolicyRunId({ ...config, rolloutWindow: 2 })).toBe(id);
    expect(onPolicyRunId({ ...config, seed: 8 })).not.toBe(id);
    expect(onPolicyCardKey({ kind: 'model', model: 'local/m', format: 'verify' }, id, config)).toEqual({
      critic: 'local/m',
      format: 'verify',
      criticParams: { temperature: 0, max_tokens: 2, logprobs: true, top_logprobs: 10 },
      promptVersion: 'critic-v2/verify',
      policy: config.base,
      dataset: 'pau-v1',
      split: 'train',
      runId: id,
    });
    expect(onPolicyCardKey({ kind: 'exec' }, id, config)).toMatchObject({ critic: 'exec', format: null, criticParams: {}, promptVersion: 'exec-v1' });
    expect(onPolicyCardKey({ kind: 'rule' }, id, config)).toMatchObject({ critic: FREE_RULE, promptVersion: 'free-rule-v1' });
    expect(onPolicyCardCommand('local/m', 'verify', 'local/p', 'pau-v1')).toBe(
      'npm run pau -- calibrate critic --on-policy --policy local/p --critic local/m --format verify --dataset pau-v1',
    );
    expect(onPolicyCardCommand('exec', 'verify', 'local/p', 'pau-v1')).toBe(
      'npm run pau -- calibrate critic --on-policy --policy local/p --critic exec --dataset pau-v1',
    );
  });
});

const rolloutOf = (episodeId: string, methodId: string, steps: OnPolicyStepRating[]): OnPolicyRolloutRatings => ({
  episodeId,
  methodId,
  swapMethodId: methodId === 'A' ? 'B' : 'A',
  steps,
  ms: 10,
});

describe("a rollout's facts", () => {
  it("labels from the execution critic (ruled out > 0), classes from the free rule; an unrated step's reason kept", () => {
    const exec = rolloutOf('e', 'A', [
      { idx: 2, own: 0.5, swapped: 0, ruledOut: 2 },
      { idx: 4, own: 0, swapped: 0, ruledOut: 0 },
      { idx: 6, own: null, swapped: null, ruledOut: null, unrated: "the method's code fails on import" },
    ]);
    const rule = rolloutOf('e', 'A', [
      { idx: 2, own: 0.9, swapped: 0.9, class: 'new' },
      { idx: 4, own: 0, swapped: 0, class: 'repeated' },
      { idx: 6, own: 0.2, swapped: 0.2, class: 'uninformative' },
    ]);
    expect(rolloutFacts({ episodeId: 'e', methodId: 'A', codeMatch: 0.5, exec, rule })).toEqual({
      episodeId: 'e',
      methodId: 'A',
      codeMatch: 0.5,
      steps: [
        { idx: 2, label: true, class: 'new' },
        { idx: 4, label: false, class: 'repeated' },
        { idx: 6, label: null, unlabelled: "the method's code fails on import", class: 'uninformative' },
      ],
    });
    expect(rolloutFacts({ episodeId: 'e', methodId: 'A', codeMatch: null, exec: undefined, rule })!.steps[0]).toEqual({
      idx: 2,
      label: null,
      unlabelled: 'not rated by the execution critic',
      class: 'new',
    });
    expect(rolloutFacts({ episodeId: 'e', methodId: 'A', codeMatch: null, exec: undefined, rule: undefined })).toBeNull();
  });
});

describe("a rollout's code match (predictive validity's outcome)", () => {
  const row = {
    episodeId: 'e',
    methodId: 'A',
    sample: 0,
    status: 'completed',
    endReason: 'submitted',
    error: null,
    hasDescription: true,
    judged: true,
    score: 4,
    codeMatchUnobserved: 0.75,
  };
  it('judged: its code match on unseen inputs; failed by the policy: 0, as its reward; unjudged: none', () => {
    expect(rolloutCodeMatch(row)).toBe(0.75);
    expect(rolloutCodeMatch({ ...row, codeMatchUnobserved: null })).toBeNull();
    expect(rolloutCodeMatch({ ...row, hasDescription: false })).toBe(0);
    expect(rolloutCodeMatch({ ...row, status: 'failed', error: 'the request exceeds the available context size' })).toBe(0);
    expect(rolloutCodeMatch({ ...row, status: 'failed', error: 'sandbox unavailable' })).toBeNull();
    expect(rolloutCodeMatch({ ...row, judged: false })).toBeNull();
  });
});

// Five rollouts of two methods. A: a0 (code match 1), a1 (0.5), a2 (0); B: b0 and b1 (both 0.5: no spread).
const facts: OnPolicyRolloutFacts[] = [
  {
    episodeId: 'a0',
    methodId: 'A',
    codeMatch: 1,
    steps: [
      { idx: 2, label: true, class: 'new' },
      { idx: 4, label: false, class: 'repeated' },
    ],
  },
  {
    episodeId: 'a1',
    methodId: 'A',
    codeMatch: 0.5,
    steps: [
      { idx: 2, label: true, class: 'new' },
      { idx: 4, label: false, class: 'repeated' },
    ],
  },
  {
    episodeId: 'a2',
    methodId: 'A',
    codeMatch: 0,
    steps: [
      { idx: 2, label: false, class: 'new' },
      { idx: 4, label: null, unlabelled: 'import fails', class: 'repeated' },
    ],
  },
  {
    episodeId: 'b0',
    methodId: 'B',
    codeMatch: 0.5,
    steps: [
      { idx: 2, label: true, class: 'new' },
      { idx: 3, label: false, class: 'repeated' },
    ],
  },
  { episodeId: 'b1', methodId: 'B', codeMatch: 0.5, steps: [{ idx: 2, label: false, class: 'new' }] },
];
const s = (idx: number, own: number | null, swapped: number | null, unrated?: string): OnPolicyStepRating => ({
  idx,
  own,
  swapped,
  ...(unrated ? { unrated } : {}),
});
// The critic: b1 has no row (its rating failed).
const critic = new Map(
  [
    rolloutOf('a0', 'A', [s(2, 0.9, 0.9), s(4, 0, 0.5)]),
    rolloutOf('a1', 'A', [s(2, 0.8, 0.2), s(4, 0.2, 0.2)]),
    rolloutOf('a2', 'A', [s(2, 0.3, 0.3), s(4, null, null, 'no rating in the answer')]),
    rolloutOf('b0', 'B', [s(2, 0.2, 0.2), s(3, 0.5, 0.5)]),
  ].map((r) => [r.episodeId, r]),
);

describe('the measures, worked by hand', () => {
  const m = onPolicyMeasures(facts, critic);

  it('counts the steps, the unrated ones and the unlabelled ones, each with its reason', () => {
    expect(m).toMatchObject({
      rollouts: 5,
      steps: 9,
      unrated: 2,
      unratedReasons: { 'no rating in the answer': 1, 'not rated': 1 },
      unlabelled: 1,
      unlabelledReasons: { 'import fails': 1 },
    });
  });

  it('agreement: AUROC over the steps both rated and labelled, a tie counted half', () => {
    // positives 0.9, 0.8, 0.2 against negatives 0, 0.2, 0.3, 0.5: 4 + 4 + (1 + 0.5) of 12 pairs.
    expect(m.positives).toBe(3);
    expect(m.negatives).toBe(4);
    expect(m.auroc).toBeCloseTo(9.5 / 12, 12);
  });

  it('privilege used: |own - swapped| over the 7 steps rated both ways; 2 of them moved by 0.1 or more', () => {
    expect(m.privilegePairs).toBe(7);
    expect(m.privilegeMeanShift).toBeCloseTo(1.1 / 7, 12);
    expect(m.privilegeChanged).toBeCloseTo(2 / 7, 12);
  });

  it('predictive validity: rho within A (B has no spread in code match: skipped, counted)', () => {
    // sums a0 0.9, a1 1.0, a2 0.3 (its unrated step adds 0) against code match 1, 0.5, 0: ranks 2, 3, 1 vs 3, 2, 1,
    // sum d^2 = 2: 1 - 12 / 24.
    expect(m).toMatchObject({ groups: 1, flatGroups: 1 });
    expect(m.rho).toBeCloseTo(0.5, 12);
  });

  it('the repeat rung: (repeated, new) pairs of a rollout, both rated; b0 rates its repeat above its new step', () => {
    expect(m.repeatPairs).toBe(3);
    expect(m.repeatAtOrBelow).toBeCloseTo(2 / 3, 12);
  });

  it('means overall and by class', () => {
    expect(m.meanRating).toBeCloseTo(2.9 / 7, 12);
    expect(m.meanByClass.new).toBeCloseTo(2.2 / 4, 12);
    expect(m.meanByClass.repeated).toBeCloseTo(0.7 / 3, 12);
    expect(m.meanByClass.uninformative).toBeNull();
  });

  it('a critic whose sums do not vary in a group with spread orders nothing there: rho 0', () => {
    const flat = new Map(
      facts.map((f) => [
        f.episodeId,
        rolloutOf(
          f.episodeId,
          f.methodId,
          f.steps.map((x) => s(x.idx, 0.5, 0.5)),
        ),
      ]),
    );
    const fm = onPolicyMeasures(facts, flat);
    expect(fm.rho).toBe(0);
    expect(fm.groups).toBe(1);
    // the same rating with every method's information: nothing moved
    expect(fm.privilegeChanged).toBe(0);
    // every step tied: chance
    expect(fm.auroc).toBe(0.5);
  });

  it('the checks against the thresholds and the free rule: what passes and what fails, with the values', () => {
    const checks = onPolicyChecks(m, 0.6);
    expect(checks.map((c) => [c.pass, c.value === null ? null : Number(c.value.toFixed(4)), c.threshold])).toEqual([
      [true, 0.7917, '>= 0.70'],
      [true, 0.2857, '>= 25%'],
      [true, 0.5, '>= 0.20'],
      [false, -0.1, '> 0.00'], // below the free rule's 0.6
      [false, 1, '>= 8'],
      [false, 0.6667, '>= 95%'],
      [false, 0.7778, '>= 90%'], // 7 of 9 steps rated
    ]);
    expect(onPolicyChecks(m, null)[3]).toMatchObject({ value: null, pass: false });
    expect(onPolicyChecks(m, 0.4, { ...DEFAULT_ON_POLICY_THRESHOLDS, minGroups: 1 })[3]).toMatchObject({ pass: true });
  });
});

describe('every critic on the same rollouts', () => {
  it('the free rule is scored like the others, and its rho is the one the others must beat', () => {
    const rule = new Map(
      facts.map((f) => [
        f.episodeId,
        rolloutOf(
          f.episodeId,
          f.methodId,
          f.steps.map((x) => s(x.idx, x.class === 'new' ? 0.9 : 0, x.class === 'new' ? 0.9 : 0)),
        ),
      ]),
    );
    const v = scoreOnPolicyCritics(
      facts,
      new Map([
        [FREE_RULE, rule],
        ['local/m (rubric)', critic],
      ]),
      FREE_RULE,
      { ...DEFAULT_ON_POLICY_THRESHOLDS, minGroups: 1 },
    );
    const r = v.get(FREE_RULE)!;
    // the rule's sums in A: 0.9, 0.9, 0.9: no order, rho 0; it never moves with another method's information
    expect(r.measures.rho).toBe(0);
    expect(r.measures.privilegeChanged).toBe(0);
    expect(r.qualified).toBe(false);
    const c = v.get('local/m (rubric)')!;
    expect(c.checks[3]).toMatchObject({ value: 0.5, pass: true });
    expect(c.qualified).toBe(false); // the repeat rung and the rated share still fail
  });
});

describe("the card's text", () => {
  const measures = onPolicyMeasures(facts, critic);
  const checks = onPolicyChecks(measures, 0.6);
  const card: OnPolicyCriticCard = {
    cardKey: 'k',
    critic: 'local/m',
    format: 'rubric',
    criticParams: {},
    promptVersion: 'critic-v1',
    policy: 'local/p',
    dataset: 'pau-v1',
    split: 'train',
    runId: 'critic-card-abc',
    label: 'local/m (rubric)',
    methods: 2,
    group: 3,
    measures,
    checks,
    qualified: false,
    thresholds: DEFAULT_ON_POLICY_THRESHOLDS,
    passMs: 125_000,
    computedAt: '2026-12-07T10:00:00.000Z',
    workflowId: null,
  };

  it('the verdict, each check, what was counted and the pass time', () => {
    const lines = onPolicyCardLines(card);
    expect(lines[0]).toBe(
      "critic card (on the policy's rollouts): critic local/m (rubric) NOT QUALIFIED (policy local/p, pau-v1/train, 2 methods x 3 rollouts, 5 rated; run critic-card-abc; critic-v1; 2026-12-07)",
    );
    expect(lines[1]).toBe('  pass  agreement: AUROC of the ratings against "the step ruled out an alternative": 0.79 (needs >= 0.70)');
    expect(lines[4]).toBe('  FAIL  predictive validity above the free rule (rho minus its rho): -0.10 (needs > 0.00)');
    expect(lines).toContain(
      "  9 rated steps of 5 rollouts: 3 ruled out an alternative, 4 did not; mean |change| with another method's information 0.16 over 7 steps; 1 groups with spread in code match, 1 without (skipped)",
    );
    expect(lines).toContain('  mean rating by class: new 0.55, repeated 0.23, uninformative -; rating pass 2 min 05 s');
    expect(lines).toContain('  unrated steps 2 (1: no rating in the answer; 1: not rated)');
    expect(lines).toContain('  steps without an execution label 1 (1: import fails)');
  });

  it('one row per critic side by side', () => {
    const t = onPolicyTable([card]);
    expect(t.headers[0]).toBe('critic');
    expect(t.rows).toEqual([['local/m (rubric)', '2 min 05 s', '0.79', '29% / 0.16', '0.50 (1)', '67%', '78%', 'not qualified']]);
    expect(durationText(1234)).toBe('1.2 s');
    expect(durationText(null)).toBe('-');
  });
});
