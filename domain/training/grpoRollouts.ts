// From a finished rollout (an episode's steps) to what the critic rates and what the trainer reads. Pure.
//
// One exploration step = one assistant message (one policy message for the trainer) with the calls it made.
// The critic rates the assistant steps that made at least one call (run or rejected) and did not submit;
// the others (plain text, the final description) get no step reward (null, which adds 0 to the
// reward-to-go: docs/training.md, "Advantages").
import type { StepLike } from '../episode/observedCalls';
import type { CriticCall } from './criticPrompt';
import type { SampledTokens } from './sampledTokens';

/** An assistant step and the calls it made, in order. */
export interface ExplorationStep {
  /** The assistant step's index. */
  idx: number;
  calls: CriticCall[];
  /** The argument texts of the calls the sandbox ran (returned or raised), in order: what the execution critic runs again. */
  ran: string[];
  submitted: boolean;
}

function criticCall(entryPoint: string, s: StepLike): CriticCall | undefined {
  const c = s.call ?? {};
  const o = s.observation ?? {};
  const text = o.text ?? '(no result)';
  if (s.kind === 'call') {
    const call = typeof c.label === 'string' ? c.label : `${entryPoint}(${typeof c.arguments === 'string' ? c.arguments : ''})`;
    if (o.executed === false || !o.result) return { call, observation: text, status: 'rejected' };
    return { call, observation: text, status: o.result.ok === false ? 'raised' : 'ran' };
  }
  if (s.kind === 'problem') return { call: typeof c.raw === 'string' && c.raw ? c.raw : '(invalid call)', observation: text, status: 'rejected' };
  return undefined;
}

/** The assistant steps of an episode with their calls (steps in index order). */
export function explorationSteps(steps: readonly StepLike[], entryPoint: string): ExplorationStep[] {
  const out: ExplorationStep[] = [];
  for (const s of steps) {
    if (s.kind === 'assistant') {
      out.push({ idx: s.idx, calls: [], ran: [], submitted: false });
      continue;
    }
    const cur = out.at(-1);
    if (!cur) continue;
    if (s.kind === 'submit') cur.submitted = true;
    const c = criticCall(entryPoint, s);
    if (c) cur.calls.push(c);
    if (c && c.status !== 'rejected' && typeof s.call?.arguments === 'string') cur.ran.push(s.call.arguments);
  }
  return out;
}

/** Whether the critic rates this step. */
export function isRated(step: ExplorationStep): boolean {
  return step.calls.length > 0 && !step.submitted;
}

/** The calls before step i (what the critic sees as the trajectory so far). */
export function callsBefore(steps: readonly ExplorationStep[], i: number): CriticCall[] {
  return steps.slice(0, i).flatMap((s) => s.calls);
}

/**
 * One line of the trainer's rollouts JSONL (docs/training.md, "GRPO update"): the conversation as sent
 * (OpenAI chat format, from openAiLine), every assistant message a policy message, and its rewards: the
 * outcome and one critic reward (or null) per assistant message, in order; `length_cut`: the assistant
 * messages cut at max_tokens (their end-of-turn token is not trained); `sampled`: per assistant message the
 * token ids its server sampled and their log-probs, or null (written only when some turn has them).
 */
export function rolloutLine(
  id: string,
  group: string,
  line: { messages: readonly { role: string }[]; tools?: unknown },
  stepRewards: readonly (number | null)[],
  outcome: number,
  lengthCut: readonly number[] = [],
  sampled: readonly (SampledTokens | null)[] = [],
): Record<string, unknown> {
  const policy = line.messages.flatMap((m, i) => (m.role === 'assistant' ? [i] : []));
  if (policy.length !== stepRewards.length) {
    throw new Error(`rollout ${id}: ${policy.length} assistant messages but ${stepRewards.length} step rewards`);
  }
  return {
    id,
    group,
    ...line,
    policy_messages: policy,
    rewards: { outcome, steps: [...stepRewards] },
    ...(lengthCut.length > 0 ? { length_cut: [...lengthCut] } : {}),
    ...(sampled.some((x) => x !== null) ? { sampled: policy.map((_, k) => sampled[k] ?? null) } : {}),
  };
}
