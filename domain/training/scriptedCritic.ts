// The scripted mock model playing the AAC-GRPO CRITIC (not a language model; every reply says so), for
// tests that need exact, repeatable step rewards. The mock server dispatches here when a request carries the
// critic's system prompt. Rule: a rejected call is worth 0, a repeat of an earlier call 2, a call that raised
// 6, a new call that returned a value 9; a step's reward is the mean over its calls. Pure code.
import type { RequestMessage } from '../llm/chatMessage';
import { readBlock } from '../judge/judgePrompt';
import { SCRIPTED_MARK } from '../judge/scriptedJudge';
import { CRITIC_SYSTEM } from './criticPrompt';

const text = (m: RequestMessage | undefined) => (typeof m?.content === 'string' ? m.content : '');

function parseLines(blockText: string | undefined): { call: string; status: string }[] {
  if (!blockText || blockText.trim() === '(none)') return [];
  return blockText.split('\n').flatMap((line) => {
    const m = /^(.*?) -> [\s\S]*\[(ran|raised|rejected)\]\s*$/.exec(line);
    return m ? [{ call: m[1]!.trim(), status: m[2]! }] : [];
  });
}

/** The scripted critic's score (0..10) of a critic request, or undefined when the request is not the critic's. */
export function scriptedCriticScore(messages: readonly RequestMessage[]): number | undefined {
  if (text(messages.find((m) => m.role === 'system')) !== CRITIC_SYSTEM) return undefined;
  const user = text(messages.find((m) => m.role === 'user'));
  const before = new Set(parseLines(readBlock(user, 'trajectory')).map((c) => c.call));
  const step = parseLines(readBlock(user, 'new_step'));
  if (step.length === 0) return 0;
  const each = step.map((c): number => (c.status === 'rejected' ? 0 : before.has(c.call) ? 2 : c.status === 'raised' ? 6 : 9));
  return Math.round(each.reduce((a, b) => a + b, 0) / each.length);
}

/** The reply for the mock server (policies oracle/null/random answer as the critic; others fall through). */
export function scriptedCriticReply(policy: string, messages: readonly RequestMessage[]): { kind: 'message'; content: string; toolCalls: [] } | undefined {
  if (!['oracle', 'null', 'random'].includes(policy)) return undefined;
  const score = scriptedCriticScore(messages);
  if (score === undefined) return undefined;
  // The format the critic is asked for: the reward first, then the rationale (null: an unparsable answer).
  const content =
    policy === 'null'
      ? `${SCRIPTED_MARK} I cannot rate this step.`
      : `REWARD: ${score}\n${SCRIPTED_MARK} Scored by the scripted rule (new value 9, raised 6, repeat 2, rejected 0).`;
  return { kind: 'message', content, toolCalls: [] };
}
