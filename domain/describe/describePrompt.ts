// The prompt that asks a model for a method's reference description (`pau dataset describe`), for sources
// that give none (CruxEval). The description is kept only when a coder, given nothing but the signature and
// the description, writes code that matches the original on held-out inputs (activities/describe). Pure.
import type { ChatMessage } from '../llm/chatMessage';
import { block } from '../judge/judgePrompt';

/** Stored with every description (its provenance): bump when the prompt's wording changes. */
export const DESCRIBE_PROMPT_VERSION = 'describe-v1';

export const DESCRIBE_SYSTEM = [
  'You write reference descriptions of Python functions for a benchmark. Read the function and describe what it',
  'does, precisely enough that a programmer who never sees the code could reimplement it exactly from your text.',
  '',
  'Rules:',
  '- Describe behaviour: what it returns for every kind of input, edge cases (empty inputs, zero, negatives,',
  '  duplicates) and the exceptions it raises and when.',
  '- Only return values and exceptions matter: callers cannot see changes made to arguments in place or printed output.',
  '- Do not quote or paraphrase the code line by line, and do not name its variables; write plain prose.',
  '- Answer with the description only.',
].join('\n');

export function buildDescribeMessages(input: { signature: string; code: string }): ChatMessage[] {
  const content = [
    `Function signature: ${input.signature.trim()}`,
    '',
    "The function's code:",
    block('method_code', input.code),
    '',
    'Write its description.',
  ].join('\n');
  return [
    { role: 'system', content: DESCRIBE_SYSTEM },
    { role: 'user', content },
  ];
}

/** The description in a model's answer: the text, without a wrapping code fence or a "Description:" label. */
export function extractDescription(answer: string | null | undefined): string {
  let t = (answer ?? '').trim();
  const fenced = /^```[^\n]*\n([\s\S]*?)\n?```$/.exec(t);
  if (fenced) t = (fenced[1] ?? '').trim();
  return t.replace(/^\**description\**\s*:\s*/i, '').trim();
}

/** Whether a code match keeps the description (the threshold is the run's, default 1.0). */
export function keepsDescription(codeMatch: number | null, threshold: number): boolean {
  return codeMatch !== null && codeMatch >= threshold - 1e-12;
}
