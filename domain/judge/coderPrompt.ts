// The code writer for code match: a model writes a Python function with the method's signature from the
// agent's description alone (never the code, never the gold), and the code is pulled out of its answer.
// Pure code, no I/O.
import type { ChatMessage } from '../llm/chatMessage';
import { block } from './judgePrompt';
import { definesFunction } from '../episode/names';

export interface CoderInput {
  signature: string;
  entryPoint: string;
  description: string;
}

export const CODER_SYSTEM = [
  'You write Python functions from descriptions. You get a function signature and a description of what the',
  'function does; write a complete implementation that behaves exactly as described: the same return values',
  'and the same exceptions (raise the exception type the description names). Use only the Python standard library.',
  // Measured (docs/results/judging.md, "The code writer's prompt"): unasked-for input checks and in-place functions that
  // return None were the commonest way code from a correct description missed the method.
  'Where the description is silent, make the simplest choice consistent with it: add no input checks and raise no',
  'exceptions it does not mention, and return the result (a function that changes an argument in place returns it too).',
  'Do not print anything.',
  'Answer with one ```python fenced block holding the function (and any imports or helpers it needs), nothing else.',
].join('\n');

export function buildCoderMessages(input: CoderInput): ChatMessage[] {
  const content = [
    `Signature: ${input.signature.trim()}`,
    `The function must be named \`${input.entryPoint}\` and take the same parameters (keep the name exactly as written, even if it looks misspelled).`,
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
  const defines = definesFunction(entryPoint);
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
  return anyPy ? bindEntryPoint(tidy(anyPy.code), entryPoint) : null;
}

/**
 * Code that defines no `entryPoint` but a top-level function whose name is the entry point's respelt
 * (a name of 6 or more letters with at most a fifth of them edited: `check_occurrences` for the method's
 * `check_occurences`) gets `entryPoint = thatName` appended, so code match measures behaviour, not
 * spelling; measured: the coder corrects misspelt names even when told not to. Short names are never
 * rebound (`fx` is another function than `f`); anything else is unchanged (and fails as "no entry point").
 */
export function bindEntryPoint(code: string, entryPoint: string): string {
  const defines = definesFunction(entryPoint);
  if (defines.test(code)) return code;
  const names = [...code.matchAll(/^(?:async\s+)?def\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(/gm)].map((m) => m[1] as string);
  if (entryPoint.length < 6) return code;
  const limit = Math.max(1, Math.floor(entryPoint.length / 5));
  const close = names
    .map((name) => ({ name, d: editDistance(name, entryPoint) }))
    .filter((c) => c.d <= limit)
    .sort((a, b) => a.d - b.d);
  const best = close[0];
  return best ? `${code}\n${entryPoint} = ${best.name}\n` : code;
}

/** Levenshtein distance (insertions, deletions, substitutions). */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++)
      cur[j] = Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, (prev[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length] as number;
}

function tidy(code: string): string {
  return code.replace(/\s+$/, '') + '\n';
}
