// The scripted mock model playing the AAC-GRPO CRITIC (not a language model; every reply says so), for
// tests that need exact, repeatable step rewards. The mock server dispatches here when a request carries the
// critic's system prompt. It answers with the free rule (domain/training/criticCard.ts, freeRuleScore), read
// from what the prompt shows (the calls so far and the step's calls with what came back): a rejected call is
// worth 0, a repeat of an earlier call 0, an uninformative call (an input class and an outcome already seen) 2,
// a new call that raised 6, a new call that returned a value 9; a step's reward is the mean over its calls.
// It never reads the gold description: on the on-policy card its privilege shift is 0.
// Asked in the verify format, it answers yes for a step worth 6 or more, no otherwise. Pure code.
import type { RequestMessage } from '../llm/chatMessage';
import { readBlock } from '../judge/judgePrompt';
import { SCRIPTED_MARK } from '../judge/scriptedJudge';
import { freeRuleScore } from './criticCard';
import type { CriticCall } from './criticPrompt';
import { CRITIC_SYSTEM } from './criticFormats/rubric';
import { CRITIC_VERIFY_SYSTEM } from './criticFormats/verify';

const text = (m: RequestMessage | undefined) => (typeof m?.content === 'string' ? m.content : '');

/** The calls of a prompt block, as criticUserText wrote them (`call -> observation  [status]`). */
function parseLines(blockText: string | undefined): CriticCall[] {
  if (!blockText || blockText.trim() === '(none)') return [];
  return blockText.split('\n').flatMap((line) => {
    const m = /^(.*?) -> ([\s\S]*?)\s*\[(ran|raised|rejected)\]\s*$/.exec(line);
    if (!m) return [];
    const status = m[3] as CriticCall['status'];
    return [{ call: m[1]!.trim(), observation: status === 'rejected' ? m[2]!.replace(/^\(not run\) /, '') : m[2]!, status }];
  });
}

/** The scripted critic's score (0..10) of a critic request, or undefined when the request is not the critic's. */
export function scriptedCriticScore(messages: readonly RequestMessage[]): number | undefined {
  const system = text(messages.find((m) => m.role === 'system'));
  if (system !== CRITIC_SYSTEM && system !== CRITIC_VERIFY_SYSTEM) return undefined;
  const user = text(messages.find((m) => m.role === 'user'));
  const before = parseLines(readBlock(user, 'trajectory'));
  const step = parseLines(readBlock(user, 'new_step'));
  return freeRuleScore(before, step);
}

/** The reply for the mock server (policies oracle/null/random answer as the critic; others fall through). */
export function scriptedCriticReply(policy: string, messages: readonly RequestMessage[]): { kind: 'message'; content: string; toolCalls: [] } | undefined {
  if (!['oracle', 'null', 'random'].includes(policy)) return undefined;
  const score = scriptedCriticScore(messages);
  if (score === undefined) return undefined;
  // The format the critic is asked for: the reward first, then the rationale, or one word for verify (null: an unparsable answer).
  const verify = text(messages.find((m) => m.role === 'system')) === CRITIC_VERIFY_SYSTEM;
  const rule = 'Scored by the scripted rule (new value 9, raised 6, uninformative 2, repeat 0, rejected 0)';
  const content =
    policy === 'null'
      ? `${SCRIPTED_MARK} I cannot rate this step.`
      : verify
        ? `${score >= 6 ? 'yes' : 'no'}\n${SCRIPTED_MARK} ${rule}: ${score}.`
        : `REWARD: ${score}\n${SCRIPTED_MARK} ${rule}.`;
  return { kind: 'message', content, toolCalls: [] };
}
