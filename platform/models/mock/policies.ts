// The scripted model's policies: pure functions from a chat request (and the method it is about) to a
// reply. Not a language model: every reply says so (content prefix, `model`, `system_fingerprint`).
import type { RequestMessage } from '../../../domain/llm/chatMessage';
import type { MockPolicy } from '../../../config/models';
import { fnv1a } from '../../../domain/common/hash';
import { seededRandom } from '../../../domain/common/seededRandom';
import { FINAL_ASK_MARK, TEXT_CALL_PREFIX, TEXT_DESCRIPTION_PREFIX } from '../../../domain/episode/prompts';
import { GENERIC_DESCRIPTIONS } from '../../../domain/judge/cardRungs';

export const MOCK_MARK = '[scripted mock model — not a real LLM]';
export const MOCK_FINGERPRINT = 'pau-scripted-mock-not-a-real-llm';

export interface MockMethod {
  id: string;
  signature: string | null;
  entryPoint: string | null;
  probeInputs: string[];
  goldDescription: string | null;
  code?: string | null;
}

export interface MockRequest {
  model: string;
  messages: RequestMessage[];
  tools?: { type?: string; function?: { name?: string } }[];
  /** Asked for token logprobs (the judge does): the scripted server answers with certain ones. */
  logprobs?: boolean;
}

export interface MockToolCall {
  name: string;
  /** Raw JSON text of the arguments (deliberately broken for the `malformed` policy). */
  arguments: string;
}
export type MockReply =
  | { kind: 'message'; content: string | null; toolCalls: MockToolCall[] }
  | { kind: 'http-error'; status: number; headers?: Record<string, string>; body: unknown };

/** Calls the oracle makes in its one exploration turn at most. */
export const ORACLE_MAX_CALLS = 8;
/** Calls the `steps` policy makes, one per turn (the orchestration benchmark). */
export const STEPS_POLICY_CALLS = 10;

/** Parameters without defaults in a `def f(a, b=1, *, c)` line (what a call must supply positionally). */
export function requiredArity(signature: string | null): number {
  if (!signature) return 1;
  const m = /\((.*)\)/s.exec(signature);
  if (!m || !m[1]?.trim()) return 0;
  let depth = 0;
  let cur = '';
  const parts: string[] = [];
  for (const ch of m[1]) {
    if ('([{'.includes(ch)) depth++;
    if (')]}'.includes(ch)) depth--;
    if (ch === ',' && depth === 0) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  parts.push(cur);
  let n = 0;
  for (const p of parts.map((s) => s.trim()).filter(Boolean)) {
    if (p === '*' || p === '/' || p.startsWith('*')) break;
    if (p === 'self' || p.includes('=')) continue;
    n++;
  }
  return n;
}

function randomLiteral(rng: () => number): string {
  const pick = Math.floor(rng() * 5);
  const int = () => String(Math.floor(rng() * 21) - 5);
  switch (pick) {
    case 0:
      return int();
    case 1:
      return JSON.stringify(['', 'a', 'abc', 'Hello World', 'racecar', '12321'][Math.floor(rng() * 6)]);
    case 2:
      return `[${Array.from({ length: Math.floor(rng() * 5) }, int).join(', ')}]`;
    case 3:
      return (rng() * 10).toFixed(2);
    default:
      return rng() < 0.5 ? 'True' : 'False';
  }
}

const call = (args: string): MockToolCall => ({ name: 'call_method', arguments: JSON.stringify({ arguments: args }) });
// The description itself carries no mark: a real judge and code writer read it, and an anchor must be
// scored on the gold it replays, not on a banner (the messages around it and the model's name say "scripted").
const submit = (description: string): MockToolCall => ({
  name: 'submit_description',
  arguments: JSON.stringify({ description }),
});
const say = (text: string) => `${MOCK_MARK} ${text}`;

function describe(method: MockMethod | undefined): string {
  const gold = method?.goldDescription?.trim();
  if (gold) return gold;
  // Code-only methods (CruxEval) have no gold text: the oracle's privileged knowledge is the code itself.
  if (method?.code) return `It behaves exactly like this Python code:\n\`\`\`python\n${method.code.trim()}\n\`\`\``;
  return 'No gold description is stored for this method.';
}

/** The reply for one request. `method` is undefined when the request named no known method. */
export function reply(policy: MockPolicy, req: MockRequest, method: MockMethod | undefined): MockReply {
  const tools = new Set((req.tools ?? []).map((t) => t.function?.name ?? ''));
  const canCall = tools.has('call_method');
  const canSubmit = tools.has('submit_description');
  const turns = req.messages.filter((m) => m.role === 'assistant').length;
  const observed = req.messages.filter((m) => m.role === 'tool').length;
  const probes = method?.probeInputs ?? [];
  // A final answer, in the form the request allows (a tool call, or plain text for in-context).
  const answer = (text: string): MockReply =>
    canSubmit ? { kind: 'message', content: say('Submitting my description.'), toolCalls: [submit(text)] } : { kind: 'message', content: text, toolCalls: [] };

  switch (policy) {
    case 'unauthorized':
      return {
        kind: 'http-error',
        status: 401,
        body: { error: { message: say('invalid API key (scripted 401)'), type: 'invalid_request_error', code: 'invalid_api_key' } },
      };
    case 'ratelimit': // the server answers 429 the first time it sees a request; then as the oracle
    case 'loading': // the server answers 503 Loading model twice for a request, as llama.cpp while it loads; then as the oracle
    case 'oracle':
      if (canCall && turns === 0 && probes.length > 0) {
        return { kind: 'message', content: say('Calling the method on its probe inputs.'), toolCalls: probes.slice(0, ORACLE_MAX_CALLS).map(call) };
      }
      return answer(describe(method));
    case 'null':
      return answer('I do not know what this method does.');
    case 'random': {
      const rng = seededRandom(fnv1a(`${method?.id ?? ''}|${req.messages.length}|${observed}`));
      const wanted = 1 + (fnv1a(method?.id ?? 'x') % 3);
      if (canCall && turns < wanted) {
        const arity = requiredArity(method?.signature ?? null);
        const n = 1 + Math.floor(rng() * 3);
        const calls = Array.from({ length: n }, () => call(Array.from({ length: arity }, () => randomLiteral(rng)).join(', ')));
        return { kind: 'message', content: say('Trying some random inputs.'), toolCalls: calls };
      }
      return answer(GENERIC_DESCRIPTIONS[0]); // true of any function: the judge card's generic rung holds it too
    }
    case 'malformed':
      if (canCall && turns === 0)
        return {
          kind: 'message',
          content: say('A tool call with broken JSON arguments.'),
          toolCalls: [{ name: 'call_method', arguments: '{"arguments": "1, 2' }],
        };
      return answer(describe(method));
    case 'wrong-arity':
      if (canCall && turns === 0) {
        const extra = probes[0] ? `${probes[0]}, 0, 0, 0` : '0, 0, 0, 0, 0, 0, 0';
        return { kind: 'message', content: say('A call with too many arguments.'), toolCalls: [call(extra)] };
      }
      return answer(describe(method));
    case 'refuse':
      return { kind: 'message', content: say("I'm sorry, but I can't help with that."), toolCalls: [] };
    case 'empty':
      // The one policy whose output is empty by design (it tests empty answers); `model` and
      // `system_fingerprint` still say it is the scripted mock.
      return { kind: 'message', content: '', toolCalls: [] };
    case 'steps':
      if (canCall && observed < STEPS_POLICY_CALLS && probes.length > 0) {
        return { kind: 'message', content: say(`Call ${observed + 1}.`), toolCalls: [call(probes[observed % probes.length]!)] };
      }
      return answer(describe(method));
    // Plain-text protocol, like the small local models at the final ask: a CALL line every turn, also after
    // "no more calls will be run". `text-reask` writes its description once it has been asked twice.
    case 'text-calls-only':
    case 'text-reask': {
      const asks = req.messages.filter((m) => m.role === 'user' && typeof m.content === 'string' && m.content.includes(FINAL_ASK_MARK)).length;
      if (policy === 'text-reask' && asks >= 2)
        return { kind: 'message', content: say(`My description.\n${TEXT_DESCRIPTION_PREFIX} ${describe(method)}`), toolCalls: [] };
      const args = probes.length > 0 ? probes[turns % probes.length]! : '0';
      return { kind: 'message', content: say(`Let me try one more input.\n${TEXT_CALL_PREFIX} ${method?.entryPoint ?? 'f'}(${args})`), toolCalls: [] };
    }
  }
}
