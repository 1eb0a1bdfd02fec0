// The contradiction classifier on fixed cases with the scripted judge: the prompt numbers the agent's own
// observations; the scripted classifier (the mock server's judge role) says consistent / omits /
// contradicts and cites the observation; the parser reads the verdict and the citation; the report counts
// the share of failures whose description contradicts an observation.
import { describe, expect, it } from 'vitest';
import { buildContradictionMessages, CONTRADICTION_SYSTEM, parseContradiction, type ContradictionObservation } from '../../domain/judge/contradictionPrompt';
import { scriptedJudgeOrCoderReply, scriptedRole } from '../../domain/judge/scriptedJudge';
import { contradictionGroups } from '../../domain/report/contradictionSummary';
import type { EpisodeRow } from '../../domain/report/summarize';

const OBS: ContradictionObservation[] = [
  { arguments: '2, 3', ok: true, text: '5' },
  { arguments: '-1, 1', ok: true, text: '0' },
  { arguments: "'a', 1", ok: false, text: 'TypeError: can only concatenate str (not "int") to str' },
];

function classify(description: string, observations = OBS) {
  const messages = buildContradictionMessages({ signature: 'def add(a, b):', entryPoint: 'add', description, observations });
  const reply = scriptedJudgeOrCoderReply('oracle', messages);
  return { messages, reply: reply?.content ?? '', parsed: parseContradiction(reply?.content, observations.length) };
}

describe('contradiction classifier', () => {
  it('numbers the observations in the prompt and is recognised as its own scripted role', () => {
    const { messages } = classify('Adds a and b.');
    expect(messages[0]).toEqual({ role: 'system', content: CONTRADICTION_SYSTEM });
    expect(messages[1]?.content).toContain("#1 add(2, 3) -> 5\n#2 add(-1, 1) -> 0\n#3 add('a', 1) raises TypeError");
    expect(scriptedRole(messages)).toBe('classifier');
  });

  it.each([
    [
      'a description that predicts another value for an observed input',
      'Returns a times b; e.g. add(2, 3) -> 6. Raises TypeError on mixed types.',
      'contradicts',
      [1],
    ],
    ['another value for the second observation', 'add(-1, 1) returns 2; add(2, 3) returns 5. TypeError for mixed types.', 'contradicts', [2]],
    ['an exception type other than the observed one', "Sum of a and b: add(2, 3) = 5; add('a', 1) raises ValueError", 'contradicts', [3]],
    ['an observed exception it never mentions', 'Returns a + b, e.g. add(2, 3) -> 5.', 'omits', [3]],
    ['every observation explained', 'Returns a + b: add(2, 3) -> 5, add(-1, 1) -> 0; mixing str and int raises TypeError.', 'consistent', []],
  ])('%s: %s', (_what, description, verdict, cited) => {
    const { reply, parsed } = classify(description);
    expect(reply).toContain('[scripted mock model');
    expect(parsed).toEqual({ verdict, cited });
  });

  it('parses the last verdict, ignores citations out of range and markdown emphasis', () => {
    expect(parseContradiction('VERDICT: consistent\nlater...\n**VERDICT: contradicts**\nOBSERVATION: #2, #9', 3)).toEqual({
      verdict: 'contradicts',
      cited: [2],
    });
    expect(parseContradiction('Verdict = omits\nObservation: 3', 3)).toEqual({ verdict: 'omits', cited: [3] });
    expect(parseContradiction('VERDICT: consistent\nOBSERVATION: #1', 3)).toEqual({ verdict: 'consistent', cited: [] });
    expect(parseContradiction('no verdict here', 3)).toBeNull();
    expect(parseContradiction('VERDICT: maybe', 3)).toBeNull();
  });

  it('the report counts the share of failures whose description contradicts an observation', () => {
    const row = (score: number, verdict: string | null, code: boolean): EpisodeRow =>
      ({
        model: 'm',
        setting: 'interactive',
        judged: true,
        score,
        diagnostics: { contradictsObserved: code, ...(verdict ? { contradiction: { verdict } } : {}) },
      }) as unknown as EpisodeRow;
    const [g] = contradictionGroups([
      row(1, 'contradicts', true),
      row(2, 'omits', false),
      row(2, 'contradicts', false),
      row(5, 'contradicts', true),
      row(1, null, true),
    ]);
    expect(g).toMatchObject({
      judged: 5,
      classified: 4,
      contradicts: 3,
      omits: 1,
      failures: 4,
      failuresClassified: 3,
      failuresContradicting: 2,
      failuresCodeContradicting: 2,
    });
  });
});
