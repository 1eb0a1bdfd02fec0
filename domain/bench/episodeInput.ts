// The input of one episode of a benchmark run, from the run's config. Pure (no I/O): used inside
// workflows, by the benchmark run and by reruns of failed episodes, so both start identical episodes.
import type { BenchmarkConfig } from './types';
import { episodeIdOf, type EpisodeInput, type Setting } from '../episode/types';

export function episodeInputFor(runId: string, config: BenchmarkConfig, methodId: string, model: string, setting: Setting, sample: number): EpisodeInput {
  return {
    runId,
    episodeId: episodeIdOf(runId, methodId, model, setting, sample),
    methodId,
    model,
    setting,
    sample,
    split: config.split,
    ...(config.budgets ? { budgets: config.budgets } : {}),
    ...(config.k !== undefined ? { k: config.k } : {}),
    ...(config.inContextExamples ? { inContextExamples: config.inContextExamples } : {}),
    ...(config.params ? { params: config.params } : {}),
    ...(config.replay ? { replay: true } : {}),
    ...(config.sandboxLimits ? { sandboxLimits: config.sandboxLimits } : {}),
    ...(config.sandbox === 'inline' ? { sandbox: 'inline' as const } : {}),
    ...(config.judgeModel ? { judge: { judgeModel: config.judgeModel } } : {}),
    ...(config.names === 'anonymised' ? { names: config.names } : {}),
    ...(config.outageWaitSeconds !== undefined ? { outageWaitSeconds: config.outageWaitSeconds } : {}),
    ...(config.modelRetry ? { modelRetry: config.modelRetry } : {}),
    ...(config.outageFirstRetrySeconds !== undefined ? { outageFirstRetrySeconds: config.outageFirstRetrySeconds } : {}),
  };
}
