// Which judge scores a benchmark run after each episode. Explicit choice (flag or PAU_JUDGE_MODEL) wins;
// runs of scripted mock agents are judged by the scripted oracle judge; a run of real models with no
// judge configured is not judged (rather than silently judged by a mock) and says how to judge it later.
import type { BenchmarkConfig } from '../../domain/bench/types';
import { env } from '../../config/env';
import { models } from '../../config/models';
import { isCheckpointModel } from '../../domain/training/checkpointIds';

export interface JudgeChoice {
  judgeModel: string | null;
  note: string;
}

export function chooseJudge(agentModels: string[], explicit?: string): JudgeChoice {
  const wanted = explicit ?? env().PAU_JUDGE_MODEL;
  if (wanted) {
    if (!isCheckpointModel(wanted)) models().get(wanted); // throws a clear "unknown model" error
    return { judgeModel: wanted, note: `judge: ${wanted}` };
  }
  if (agentModels.every((m) => !isCheckpointModel(m) && models().get(m).provider === 'mock')) {
    return { judgeModel: 'mock-oracle', note: 'judge: mock-oracle (the scripted judge, not a real LLM: every agent model here is scripted)' };
  }
  return {
    judgeModel: null,
    note: 'judge: none configured (set PAU_JUDGE_MODEL or --judge-model); episodes are not judged now — `npm run pau -- judge --run <runId> --judge-model M` judges them later',
  };
}

/** The config field that makes each episode end with a judge step. */
export function judgeFields(judgeModel: string | null): Pick<BenchmarkConfig, 'judgeModel'> {
  return judgeModel ? { judgeModel } : {};
}
