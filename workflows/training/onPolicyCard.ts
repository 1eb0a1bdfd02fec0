// The on-policy critic card's path of criticCardWorkflow (domain/training/onPolicyCard.ts): the policy's
// rollouts of a GRPO first epoch (the same methods, seeds and episode children as grpoWorkflow's, through
// runRollouts), recorded once under their own run, those already ended kept; then each critic's rating pass over
// the ended rollouts, one after another so each pass has its own time, a window of rollouts at once and each
// rollout's row stored as it is rated (a rerun rates only the rest); then every critic's card from the rows.
import type { JudgeCardProgress } from '../../domain/judge/card';
import { rolloutEpisodeInput } from '../../domain/training/grpo';
import { type OnPolicyCardInput, type OnPolicyCardResult, swapPartners } from '../../domain/training/onPolicyCard';
import { fanOut } from '../common/fanOut';
import { db, llm } from '../proxies/mainQueue';
import { runRollouts } from './grpoRollouts';

export async function onPolicyCard(input: OnPolicyCardInput, progress: JudgeCardProgress): Promise<OnPolicyCardResult> {
  const { runId, config, critics } = input;
  const methods = await db.sampleGrpoMethods({ config, epoch: 0 });
  const inputs = methods.flatMap((m) => Array.from({ length: config.group }, (_, g) => rolloutEpisodeInput(runId, config, 0, config.base, m, g)));
  const plan = await db.startOnPolicyCard({ runId, config, critics, ...(input.force ? { force: true } : {}) });
  const todo = inputs.filter((e) => !plan.ended.includes(e.episodeId));
  const already = plan.cardKeys.reduce((a, k) => a + (plan.recorded[k]?.length ?? 0), 0);
  Object.assign(progress, { total: inputs.length * (1 + critics.length), done: inputs.length - todo.length + already });
  progress.resumed = progress.done;

  let t = Date.now();
  const outcomes = todo.length === 0 ? [] : await runRollouts({ runId, config, epoch: 0, policy: config.base, inputs: todo, onEnded: () => progress.done++ });
  const rolloutsMs = Date.now() - t;
  const ended = new Set([...plan.ended, ...outcomes.filter((o) => o.status === 'completed' || o.status === 'failed').map((o) => o.episodeId)]);
  const rated = inputs.filter((e) => ended.has(e.episodeId));
  // Rollouts that did not end were never rated: the progress does not wait for them.
  progress.total -= (inputs.length - rated.length) * critics.length;

  const swap = swapPartners(methods);
  const passMs: (number | null)[] = [];
  for (const [i, critic] of critics.entries()) {
    const cardKey = plan.cardKeys[i]!;
    const todoRatings = rated.filter((e) => !(plan.recorded[cardKey] ?? []).includes(e.episodeId));
    t = Date.now();
    await fanOut(
      todoRatings,
      async (e) => {
        await llm.rateOnPolicyRollout({ cardKey, critic, episodeId: e.episodeId, methodId: e.methodId, swapMethodId: swap.get(e.methodId) ?? null });
        progress.done++;
      },
      { window: Math.max(1, Math.min(input.window ?? 2, 20)), pauseWhenSuggested: false },
    );
    passMs.push(todoRatings.length > 0 ? Date.now() - t : null);
  }
  const cards = await db.finishOnPolicyCard({
    runId,
    methods: methods.length,
    critics,
    cardKeys: plan.cardKeys,
    passMs,
    ...(input.thresholds ? { thresholds: input.thresholds } : {}),
  });
  return { onPolicy: true, runId, methods, rollouts: inputs.length, completed: rated.length, reused: inputs.length - todo.length, rolloutsMs, cards };
}
