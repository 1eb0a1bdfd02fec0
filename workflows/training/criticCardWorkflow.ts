// Computes a critic card (domain/training/criticCard.ts): the plan picks recorded benchmark episodes, each is
// rated by the critic step by step (as a GRPO rollout is) and recorded as it finishes, in a sliding window
// (fanOut), so a rerun resumes where the last one stopped; the card is built from the stored rows. An
// on-policy card's input (`onPolicy`) takes its own path (onPolicyCard.ts): the policy's rollouts, then every
// critic's pass over them.
import { setHandler } from '@temporalio/workflow';
import type { JudgeCardProgress } from '../../domain/judge/card';
import type { CriticCardInput } from '../../domain/training/criticCard';
import { isOnPolicyCardInput, type OnPolicyCardInput } from '../../domain/training/onPolicyCard';
import { criticCardProgressQuery } from './criticCardQueries';
import { fanOut } from '../common/fanOut';
import { judge, llm } from '../proxies/mainQueue';
import { onPolicyCard } from './onPolicyCard';

export async function criticCardWorkflow(input: CriticCardInput | OnPolicyCardInput) {
  if (isOnPolicyCardInput(input)) {
    const onPolicy: JudgeCardProgress = { done: 0, resumed: 0, total: 0 };
    setHandler(criticCardProgressQuery, () => onPolicy);
    return onPolicyCard(input, onPolicy);
  }
  return recordedCard(input);
}

/** The card on recorded benchmark episodes. */
async function recordedCard(input: CriticCardInput) {
  // This card's episodes only: the row under the card's key may hold episodes of another pick (--skip).
  const progress: JudgeCardProgress = { done: 0, resumed: 0, total: input.episodes };
  setHandler(criticCardProgressQuery, () => progress);
  const plan = await judge.planCriticCard(input);
  const todo = plan.picks.filter((p) => !plan.recorded.includes(p.episodeId));
  Object.assign(progress, { total: plan.picks.length, done: plan.picks.length - todo.length, resumed: plan.picks.length - todo.length });
  const { failures } = await fanOut(
    todo,
    async (pick) => {
      await llm.rateCriticCardEpisode({ cardKey: plan.cardKey, criticModel: input.criticModel, pick, ...(plan.format ? { format: plan.format } : {}) });
      progress.done++;
    },
    { window: Math.max(1, Math.min(input.window ?? 2, 20)), pauseWhenSuggested: false },
  );
  return judge.finishCriticCard({
    cardKey: plan.cardKey,
    episodeIds: plan.picks.map((p) => p.episodeId),
    failed: failures.length,
    ...(input.thresholds ? { thresholds: input.thresholds } : {}),
  });
}
