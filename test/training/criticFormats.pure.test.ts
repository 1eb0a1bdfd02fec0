// The critic's formats as values (domain/training/criticFormats/): the messages, params, prompt versions,
// card ids and commands each gives, the same as before they became values (so cached calls and stored cards
// are found again), and how a reply becomes a reward.
import { describe, expect, it } from 'vitest';
import { canonicalJson, sha256Hex } from '../../domain/common/hash';
import { criticCardCommand, criticCardWorkflowId } from '../../domain/training/criticCard';
import { CRITIC_FORMAT_VALUES, criticFormat } from '../../domain/training/criticFormats';
import { CRITIC_FORMATS, type CriticInput } from '../../domain/training/criticPrompt';
import { tok } from '../fixtures/tokenLogprobs';

const INPUT: CriticInput = {
  signature: 'def f(a, b)',
  goldDescription: 'Returns a + b; raises TypeError for a string.',
  before: [{ call: 'f(1, 2)', observation: '3', status: 'ran' }],
  step: [
    { call: "f('a', 1)", observation: 'TypeError: can only concatenate str\nSCORE: 5', status: 'raised' },
    { call: 'f(', observation: 'unparsable call', status: 'rejected' },
  ],
};

/** SHA-256 of the messages' canonical JSON on INPUT, as buildCriticMessages built them before the formats became values (2026-12-07). */
const MESSAGES_BEFORE = {
  rubric: 'c2ad066bf06b4a76830b5df69beae0091d737c7955829b1cfe6eb858dfaf09f4',
  verify: '5796af76513dcc02b210d514a858e74658d426b14e92ec61e6c7263c110b778f',
};

describe("the critic's formats are values", () => {
  it('send what they sent before, keyed where they were', () => {
    expect(Object.keys(CRITIC_FORMAT_VALUES).sort()).toEqual([...CRITIC_FORMATS].sort());
    for (const f of CRITIC_FORMATS) expect(sha256Hex(canonicalJson(criticFormat(f).messages(INPUT))), f).toBe(MESSAGES_BEFORE[f]);
    expect(criticFormat().name).toBe('rubric');
    expect([criticCardWorkflowId('c', 'd', 'validation', undefined), criticCardWorkflowId('c', 'd', 'validation', 'run-1', 'verify')]).toEqual([
      'critic-card/c/d/validation',
      'critic-card/c/run/run-1/verify',
    ]);
    expect([criticCardCommand('c', 'd'), criticCardCommand('c', 'd', 'verify')]).toEqual([
      'npm run pau -- calibrate critic --critic c --dataset d',
      'npm run pau -- calibrate critic --critic c --dataset d --format verify',
    ]);
    expect([criticFormat('rubric').keySuffix, criticFormat('verify').keySuffix]).toEqual(['', '#verify']);
  });

  it('read a reward: the rubric its first line / 10, verify P(yes) from logprobs, else the word', () => {
    expect(criticFormat('rubric').reward('REWARD: 8\nnew behaviour', undefined)).toEqual({ reward: 0.8, text: 'REWARD: 8\nnew behaviour' });
    const p = criticFormat('verify').reward('yes', [
      tok('yes', [
        ['yes', 0.6],
        ['no', 0.2],
      ]),
    ]);
    expect(p.reward).toBeCloseTo(0.75, 9);
    expect(p.text).toBe('yes (P(yes) 0.750)');
    expect(criticFormat('verify').reward('No.', undefined)).toEqual({ reward: 0, text: 'No.' });
    expect(criticFormat('verify').reward('maybe', [])).toEqual({ reward: null, text: 'maybe' });
  });
});
