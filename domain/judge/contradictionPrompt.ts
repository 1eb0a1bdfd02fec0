// The contradiction classifier: a judge model reads the agent's final description beside the agent's
// OWN observations (the calls it made or the examples it was shown, each with the value returned or the
// exception raised) and says whether the description is consistent with them, leaves some of them
// unexplained (omits), or contradicts one (and which). The paper's "contradicts what it observed" is
// about this, not about a coder's mistakes. Pure code, no I/O.
//
// The description and the observations are candidate-controlled (the agent wrote one and chose the inputs
// of the other): both are neutralised (candidateText.ts) before they are fenced.
import { neutralised } from './candidateText';
import type { ChatMessage } from '../llm/chatMessage';
import { block } from './judgePrompt';

export const CONTRADICTION_VERDICTS = ['consistent', 'omits', 'contradicts'] as const;
export type ContradictionVerdict = (typeof CONTRADICTION_VERDICTS)[number];

export interface ContradictionObservation {
  arguments: string;
  ok: boolean;
  /** The repr returned, or "ExceptionType: message". */
  text: string;
}

export interface ContradictionInput {
  signature: string;
  entryPoint: string;
  description: string;
  observations: readonly ContradictionObservation[];
}

export const CONTRADICTION_SYSTEM = [
  'You check a description of a Python function against observations of that function.',
  'A researcher called the function as a black box (only return values and raised exceptions were observable)',
  'and then wrote the description. Compare the description with every numbered observation and classify it:',
  '- consistent: every observation is what the description predicts (or the description allows it).',
  '- omits: no observation contradicts the description, but some behaviour observed is not covered by it',
  '  (for example an exception it never mentions, or a case it says nothing about).',
  '- contradicts: the description predicts, for at least one observed input, a different value or a',
  '  different exception than the one observed.',
  'Judge what the description commits to; do not invent claims it does not make.',
  'Answer with a short reason, then two final lines of exactly this form:',
  'VERDICT: consistent|omits|contradicts',
  'OBSERVATION: #n (the number of the observation contradicted, or omitted; "none" when consistent)',
].join('\n');

/** The numbered observation lines as the classifier sees them (`#1 f(2) -> 4`, `#2 f(0) raises ...`). */
export function observationLines(entryPoint: string, observations: readonly ContradictionObservation[]): string[] {
  return observations.map((o, i) => `#${i + 1} ${entryPoint}(${neutralised(o.arguments)}) ${o.ok ? '->' : 'raises'} ${neutralised(o.text)}`);
}

export function buildContradictionMessages(input: ContradictionInput): ChatMessage[] {
  const lines = observationLines(input.entryPoint, input.observations);
  const description = neutralised(input.description);
  const content = [
    `Function signature: ${input.signature.trim()}`,
    '',
    'Observations (what the researcher saw):',
    block('observations', lines.length > 0 ? lines.join('\n') : '(none)'),
    '',
    'The description:',
    block('description', description.trim() === '' ? '(empty)' : description),
    '',
    'Give your reason, then the lines `VERDICT: ...` and `OBSERVATION: #n`.',
  ].join('\n');
  return [
    { role: 'system', content: CONTRADICTION_SYSTEM },
    { role: 'user', content },
  ];
}

export interface ParsedContradiction {
  verdict: ContradictionVerdict;
  /** 1-based observation numbers the classifier cited (empty when none). */
  cited: number[];
}

/** The last `VERDICT:` line wins; cited numbers come from the last `OBSERVATION:` line. Null: no verdict. */
export function parseContradiction(text: string | null | undefined, observationCount: number): ParsedContradiction | null {
  if (!text) return null;
  const lines = text.split(/\r?\n/).map((l) => l.replace(/[*`_]/g, '').trim());
  let verdict: ContradictionVerdict | null = null;
  let cited: number[] = [];
  for (const line of lines) {
    const v = /^verdict\s*[:=]\s*(consistent|omits|contradicts)\b/i.exec(line);
    if (v) verdict = v[1]!.toLowerCase() as ContradictionVerdict;
    const o = /^observations?\s*[:=]\s*(.*)$/i.exec(line);
    if (o) {
      cited = [...o[1]!.matchAll(/#?\s*(\d+)/g)].map((m) => Number(m[1])).filter((n) => n >= 1 && n <= observationCount);
    }
  }
  return verdict ? { verdict, cited: verdict === 'consistent' ? [] : [...new Set(cited)] } : null;
}

/** The classifier's answer for one episode (activities/judge/contradiction.ts), with what it cost. */
export interface ContradictionResult {
  /** Null: the classifier's answer had no verdict line. */
  verdict: ContradictionVerdict | null;
  /** The observations it cited, as the agent saw them. */
  cited: { n: number; arguments: string; observation: string }[];
  observations: number;
  rationale: string;
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
}
