import { describe, expect, it } from 'vitest';
import { rationale } from '../../domain/judge/formats/rationale';
import { parseVerdictWord, VERIFY_EXAMPLES, VERIFY_QUESTION, VERIFY_SYSTEM, verify } from '../../domain/judge/formats/verify';
import { scriptedJudgeOrCoderReply } from '../../domain/judge/scriptedJudge';
import { tok } from '../fixtures/tokenLogprobs';

const input = {
  signature: 'def add(a, b)',
  code: 'def add(a, b):\n    return a + b\n',
  goldDescription: 'Returns the sum of a and b.',
  agentDescription: 'Returns the sum of a and b.',
};

describe('the verify format (one yes/no question, score 1 + 4 P(yes))', () => {
  it('asks one question with the code and the reference before the candidate', () => {
    const msgs = verify.messages(input);
    expect(msgs[0]!.content).toBe(VERIFY_SYSTEM);
    // The worked examples first (the same for every request, so cached), then the request.
    expect(msgs.length).toBe(2 + 2 * VERIFY_EXAMPLES.length);
    expect(msgs.slice(1, -1).map((m) => m.role)).toEqual(VERIFY_EXAMPLES.flatMap(() => ['user', 'assistant']));
    expect(msgs.slice(0, -1)).toEqual(verify.messages({ ...input, code: 'def other():\n    return 1\n' }).slice(0, -1));
    expect(msgs.filter((m) => m.role === 'assistant').map((m) => m.content)).toEqual(VERIFY_EXAMPLES.map((e) => e.answer));
    const u = String(msgs.at(-1)!.content);
    expect(u.indexOf('<method_code>')).toBeLessThan(u.indexOf('<reference_description>'));
    expect(u.indexOf('<reference_description>')).toBeLessThan(u.indexOf('<candidate_description>'));
    expect(u.trimEnd().endsWith(VERIFY_QUESTION)).toBe(true);
    expect(verify.retryPrompt).toMatch(/yes or no/);
  });

  it('scores P(yes) renormalised over yes and no, on the rubric scale', () => {
    const d = verify.fromLogprobs([
      tok('yes', [
        ['yes', 0.6],
        ['no', 0.2],
        ['Yes', 0.1],
        ['maybe', 0.1],
      ]),
    ]);
    expect(d.pYes).toBeCloseTo(0.7 / 0.9);
    expect(d.expected).toBeCloseTo(1 + (4 * 0.7) / 0.9);
    expect(d.argmax).toBe(5);
    expect(d.mass).toBeCloseTo(0.9);
    expect(d.dist![0]).toBeCloseTo(0.2 / 0.9);
    expect(d.lowMass).toBeUndefined();
    const no = verify.fromLogprobs([tok(' No', [[' No', 0.95]])]);
    expect(no).toMatchObject({ expected: 1, argmax: 1, pYes: 0 });
  });

  it('flags a low yes/no mass and names an answer with neither as unscorable, never a number', () => {
    const low = verify.fromLogprobs([
      tok('The', [
        ['The', 0.7],
        ['yes', 0.2],
      ]),
    ]);
    expect(low).toMatchObject({ expected: 5, lowMass: true });
    const none = verify.fromLogprobs([tok('Perhaps', [['Perhaps', 1]])]);
    expect(none).toMatchObject({ expected: null, argmax: null, unscorable: "no yes or no among the answer token's alternatives" });
    expect(verify.hasAnswer([tok('Perhaps')])).toBe(false);
    expect(verify.fromLogprobs([])).toMatchObject({ expected: null, unscorable: 'empty reply' });
    // The answer token is on the last line (a reply with a preamble).
    expect(verify.fromLogprobs([tok('yes'), tok(' it'), tok('\n'), tok('no')])).toMatchObject({ expected: 1 });
  });

  it('parses the verdict word for endpoints without logprobs', () => {
    expect(parseVerdictWord('Yes.')).toBe('yes');
    expect(parseVerdictWord('**no**, it sorts')).toBe('no');
    expect(parseVerdictWord('Nothing to add')).toBeNull();
    expect(parseVerdictWord('I think yes')).toBeNull();
    expect(verify.parse('yes')).toBe(5);
    expect(verify.parse('no')).toBe(1);
    expect(verify.parse('SCORE: 4')).toBeNull();
    expect(rationale.parse('SCORE: 4')).toBe(4);
    // The last line is the answer, as a score line is elsewhere.
    expect(parseVerdictWord('It adds them.\nno')).toBe('no');
  });

  it('has the scripted oracle answer yes for the gold, no for an unrelated or empty description', () => {
    const reply = (agentDescription: string) => scriptedJudgeOrCoderReply('oracle', verify.messages({ ...input, agentDescription }))?.content;
    expect(parseVerdictWord(reply('Returns the sum of a and b.'))).toBe('yes');
    expect(parseVerdictWord(reply('Sorts a list of strings by length.'))).toBe('no');
    expect(parseVerdictWord(reply(''))).toBe('no');
  });
});
