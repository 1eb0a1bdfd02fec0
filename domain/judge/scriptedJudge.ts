// The scripted mock model playing JUDGE and CODE WRITER (not a language model; every reply says so).
// The mock server (platform/models/mock/) dispatches here when a request carries the judge's or the code
// writer's system prompt; other requests (agent turns) go to its own policies. Pure code, no I/O.
//
//   judge  oracle: scores the candidate description by its word overlap with the reference (gold)
//                  description: identical -> 5 ... unrelated -> 1. With no reference in the prompt it
//                  reads the method's own gold when the method has one (an oracle knows what the prompt
//                  hides: the judge card's code-only rungs); with none at all, an empty or "I do not know"
//                  description gets 1, one that quotes the code 5, anything else 3.
//          (verify format: yes where the rubric oracle gives 4 or 5, else no.)
//          null:   answers without a score (exercises the retry and the `unparsable` record).
//          random: a seeded random score from 1 to 5.
//   coder  oracle: writes the method's original code when the description matches the gold (overlap
//                  >= 0.9), a function that returns None otherwise.
//          null / random: the function that returns None.
import type { RequestMessage } from '../llm/chatMessage';
import { fnv1a } from '../common/hash';
import { CODER_SYSTEM } from './coderPrompt';
import { readBlock } from './judgePrompt';
import { JUDGE_SYSTEM } from './formats/rationale';
import { VERIFY_SYSTEM } from './formats/verify';
import { CONTRADICTION_SYSTEM } from './contradictionPrompt';
import { scriptedContradictionVerdict } from './scriptedContradiction';

export const SCRIPTED_MARK = '[scripted mock model — not a real LLM]';

export interface ScriptedMethod {
  id?: string;
  entryPoint?: string | null;
  goldDescription?: string | null;
  /** The method's source: needed by the oracle code writer only. */
  code?: string | null;
}

export type ScriptedReply = { kind: 'message'; content: string; toolCalls: [] };

export type ScriptedRole = 'judge' | 'coder' | 'classifier';

function text(m: RequestMessage | undefined): string {
  if (!m) return '';
  if (typeof m.content === 'string') return m.content;
  if (Array.isArray(m.content)) return m.content.map((p) => (typeof p === 'object' && p && 'text' in p ? String((p as { text: unknown }).text) : '')).join('');
  return '';
}

/** Which scripted role a request asks for, by its system prompt; undefined for anything else. */
export function scriptedRole(messages: readonly RequestMessage[]): ScriptedRole | undefined {
  const sys = text(messages.find((m) => m.role === 'system'));
  if (sys === JUDGE_SYSTEM || sys === VERIFY_SYSTEM) return 'judge';
  if (sys === CODER_SYSTEM) return 'coder';
  if (sys === CONTRADICTION_SYSTEM) return 'classifier';
  return undefined;
}

function words(s: string): string[] {
  return s
    .replace(SCRIPTED_MARK, ' ')
    .toLowerCase()
    .split(/[^a-z0-9_]+/)
    .filter((w) => w.length > 0);
}

/** Word-set overlap (Jaccard) of two descriptions, ignoring the scripted mark, case and punctuation. */
export function overlap(a: string, b: string): number {
  const x = new Set(words(a));
  const y = new Set(words(b));
  if (x.size === 0 && y.size === 0) return 1;
  let inter = 0;
  for (const w of x) if (y.has(w)) inter++;
  return inter / (x.size + y.size - inter);
}

const CLUELESS = /^(\(empty\)|i do not know[\s\S]*|no gold description[\s\S]*)$/i;

/** Whether a description quotes the method's own code (the oracle's answer for code-only methods). */
export function quotesCode(description: string, code: string | null | undefined): boolean {
  const squash = (s: string) => s.replace(/\s+/g, '');
  return !!code && squash(code).length > 0 && squash(description).includes(squash(code));
}

export function oracleJudgeScore(candidate: string, reference: string | undefined, code?: string | null): number {
  const c = candidate.replace(SCRIPTED_MARK, '').trim();
  if (c === '' || CLUELESS.test(c)) return 1;
  if (reference === undefined) return quotesCode(c, code) ? 5 : 3;
  const o = overlap(c, reference);
  return o >= 0.9 ? 5 : o >= 0.7 ? 4 : o >= 0.45 ? 3 : o >= 0.2 ? 2 : 1;
}

const msg = (content: string): ScriptedReply => ({ kind: 'message', content: `${SCRIPTED_MARK} ${content}`, toolCalls: [] });

/**
 * The scripted judge's or code writer's reply, or undefined when the request is neither (or the policy has
 * no such behaviour: the server's own policy then answers, e.g. `refuse` or `empty`).
 */
export function scriptedJudgeOrCoderReply(policy: string, messages: readonly RequestMessage[], method?: ScriptedMethod): ScriptedReply | undefined {
  const role = scriptedRole(messages);
  if (!role || !['oracle', 'null', 'random'].includes(policy)) return undefined;
  // The request itself: the last user message with a candidate (the verify format sends worked examples first,
  // a retry appends its follow-up after it); else the first user message.
  const users = messages.filter((m) => m.role === 'user').map(text);
  const user = [...users].reverse().find((u) => u.includes('<candidate_description>')) ?? users[0] ?? '';
  if (role === 'classifier') return msg(policy === 'null' ? 'I cannot classify this.' : scriptedContradictionVerdict(user));
  if (role === 'judge') {
    const candidate = readBlock(user, 'candidate_description') ?? '';
    const reference = readBlock(user, 'reference_description');
    if (policy === 'null') return msg('I cannot judge this description.');
    const verify = text(messages.find((m) => m.role === 'system')) === VERIFY_SYSTEM;
    if (policy === 'random') {
      const h = fnv1a(candidate + (reference ?? ''));
      return msg(verify ? `A random verdict:\n${h % 2 === 0 ? 'yes' : 'no'}` : `A random verdict.\nSCORE: ${1 + (h % 5)}`);
    }
    const known = reference ?? (method?.goldDescription?.trim() ? method.goldDescription : undefined);
    const score = oracleJudgeScore(candidate, known, method?.code);
    const why =
      known === undefined
        ? 'No reference description; scored on whether the description commits to anything.'
        : `Word overlap with the reference description${reference === undefined ? " (the method's own, not in the prompt)" : ''}: ${overlap(candidate, known).toFixed(2)}.`;
    // The verify format's oracle: yes for what the rubric oracle scores 4 or 5 (the verdict word last).
    if (verify) return msg(`${why} Rubric oracle score ${score}:\n${score >= 4 ? 'yes' : 'no'}`);
    return msg(`${why}\nSCORE: ${score}`);
  }
  const description = readBlock(user, 'description') ?? '';
  const entry = method?.entryPoint ?? /must be named `([^`]+)`/.exec(user)?.[1] ?? 'f';
  const gold = method?.goldDescription ?? undefined;
  if (policy === 'oracle' && method?.code && ((gold && overlap(description, gold) >= 0.9) || (!gold && quotesCode(description, method.code)))) {
    return msg(`The description matches; here is the function.\n\`\`\`python\n${method.code.replace(/\s+$/, '')}\n\`\`\``);
  }
  return msg(`I cannot implement this from the description.\n\`\`\`python\ndef ${entry}(*args, **kwargs):\n    return None\n\`\`\``);
}
