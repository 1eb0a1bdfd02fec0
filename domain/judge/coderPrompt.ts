// The code writer for code match: a model writes a Python function with the method's signature from the
// agent's description alone (never the code, never the gold), and the code is pulled out of its answer.
// Pure code, no I/O.
import type { ChatMessage } from '../llm/chatMessage';
import { block } from './judgePrompt';

export interface CoderInput {
  signature: string;
  entryPoint: string;
  description: string;
}

export const CODER_SYSTEM = [
  'You write Python functions from descriptions. You get a function signature and a description of what the',
  'function does; write a complete implementation that behaves exactly as described: the same return values',
  'and the same exceptions (raise the exception type the description names). Use only the Python standard library.',
  'Where the description is silent, make the simplest choice consistent with it. Do not print anything.',
  'Answer with one ```python fenced block holding the function (and any imports or helpers it needs), nothing else.',
].join('\n');

export function buildCoderMessages(input: CoderInput): ChatMessage[] {
  const content = [
    `Signature: ${input.signature.trim()}`,
    `The function must be named \`${input.entryPoint}\` and take the same parameters.`,
    '',
    'Description:',
    block('description', input.description.trim() === '' ? '(empty)' : input.description),
  ].join('\n');
  return [
    { role: 'system', content: CODER_SYSTEM },
    { role: 'user', content },
  ];
}

const FENCE = /```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n([\s\S]*?)```/g;

/**
 * The code in a model's answer: the last fenced block that defines `entryPoint` (python blocks first),
 * else the whole answer from its first `def entryPoint`/import line when it defines it unfenced, else the
 * last python (or unlabeled) fenced block. Null when there is nothing that looks like code.
 */
export function extractCode(answer: string | null | undefined, entryPoint: string): string | null {
  if (!answer) return null;
  const defines = new RegExp(`^\\s*(?:async\\s+)?def\\s+${escapeRe(entryPoint)}\\s*\\(`, 'm');
  const blocks = [...answer.matchAll(FENCE)].map((m) => ({ lang: (m[1] ?? '').toLowerCase(), code: m[2] ?? '' }));
  // An unterminated final fence (the model ran out of tokens or forgot it): take the rest.
  const lastOpen = answer.lastIndexOf('```');
  const fenceCount = (answer.match(/```/g) ?? []).length;
  if (fenceCount % 2 === 1 && lastOpen >= 0) {
    const rest = answer.slice(lastOpen).replace(/^```[^\n]*\n?/, '');
    blocks.push({ lang: 'python', code: rest });
  }
  const isPy = (l: string) => l === '' || l === 'python' || l === 'py' || l === 'python3';
  const pick = [...blocks].reverse().find((b) => isPy(b.lang) && defines.test(b.code)) ?? [...blocks].reverse().find((b) => defines.test(b.code));
  if (pick) return tidy(pick.code);
  if (defines.test(answer)) {
    const lines = answer.split(/\r?\n/);
    const start = lines.findIndex((l) => /^(?:from\s+\S+\s+import|import\s|@|def\s|async\s+def\s|class\s)/.test(l));
    return tidy(lines.slice(Math.max(0, start)).join('\n'));
  }
  const anyPy = [...blocks].reverse().find((b) => isPy(b.lang) && b.code.trim() !== '');
  return anyPy ? tidy(anyPy.code) : null;
}

function tidy(code: string): string {
  return code.replace(/\s+$/, '') + '\n';
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
