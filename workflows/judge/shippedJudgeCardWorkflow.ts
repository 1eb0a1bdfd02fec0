// Checks the judge card shipped with the benchmark (domain/judge/shippedCard.ts) instead of computing the
// whole card: finds the file whose key holds here, re-judges its sample of methods anew (the scores the card's
// checks read, with the reference and without it), then stores it as this machine's card when the sample
// agrees. One method at a time: every judge request shares the judge's long system prompt (judgeCardWorkflow).
import { setHandler } from '@temporalio/workflow';
import type { JudgeCardProgress } from '../../domain/judge/card';
import type { RescoredScore, ShippedCardCheck, ShippedCardCheckInput } from '../../domain/judge/shippedCard';
import { judge } from '../proxies/mainQueue';
import { judgeCardProgressQuery } from './judgeCardQueries';

export async function shippedJudgeCardWorkflow(input: ShippedCardCheckInput): Promise<ShippedCardCheck> {
  const progress: JudgeCardProgress = { done: 0, resumed: 0, total: 0 };
  setHandler(judgeCardProgressQuery, () => progress);
  const plan = await judge.planShippedCard(input);
  if (plan.status !== 'matches') return plan;
  progress.total = plan.sample.length;
  const rescored: { methodId: string; scores: RescoredScore[] }[] = [];
  for (const methodId of plan.sample) {
    const mp = await judge.prepareCardMethod({ methodIds: plan.methodIds, methodId });
    const scores = await judge.scoreCardRungs({
      methodIds: plan.methodIds,
      methodId,
      rungs: mp.rungs,
      ...(mp.codeOnlyRungs?.length ? { codeOnlyRungs: mp.codeOnlyRungs } : {}),
      judgeModel: input.judgeModel,
      params: plan.judgeParams,
      ...(input.format ? { format: input.format } : {}),
      contrastMethodId: plan.contrasts[methodId] ?? null,
      verify: true,
    });
    rescored.push({ methodId, scores: scores.map((s) => ({ rung: s.rung, ...('mode' in s && s.mode ? { mode: s.mode } : {}), score: s.score })) });
    progress.done++;
  }
  return judge.acceptShippedCard({ ...input, file: plan.file, fileSha256: plan.fileSha256, rescored });
}
