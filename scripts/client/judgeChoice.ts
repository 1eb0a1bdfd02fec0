// Which judge scores a benchmark run after each episode. Explicit choice (flag or PAU_JUDGE_MODEL) wins;
// runs of scripted mock agents are judged by the scripted oracle judge; a run whose real agents are all
// local models is judged by the strongest local model installed (a small local judge is NOT the paper's
// judge, and the note and the report say so); a run of other real models with no judge configured is
// not judged (rather than silently judged by a mock) and says how to judge it later.
import type { BenchmarkConfig } from '../../domain/bench/types';
import { installedModels } from '../../activities/llm/local/install';
import { env } from '../../config/env';
import { LOCAL_PREFIX, LOCAL_STRENGTH_ORDER, SMALL_JUDGE_WARNING } from '../../domain/llm/localModels';
import { models } from '../../config/models';
import { isCheckpointModel } from '../../domain/training/checkpointIds';
import { UsageError } from '../lib/args';

export interface JudgeChoice {
  judgeModel: string | null;
  note: string;
}

/** The strongest built-in local model whose file is installed; `fallback` when none is. */
export function strongestInstalledLocal(fallback?: string): string | undefined {
  const installed = new Set(installedModels());
  const best = LOCAL_STRENGTH_ORDER.find((m) => m !== 'smollm2-135m' && installed.has(m));
  return best ? `${LOCAL_PREFIX}${best}` : fallback;
}

/** A model's provider; a `ckpt:<id>` is served locally (its base + adapter), checked when it is called. */
function providerOf(name: string): string {
  return isCheckpointModel(name) ? 'local' : models().get(name).provider; // throws a clear "unknown model" error
}

export function chooseJudge(agentModels: string[], explicit?: string): JudgeChoice {
  const wanted = explicit ?? env().PAU_JUDGE_MODEL;
  if (wanted) {
    return { judgeModel: wanted, note: `judge: ${wanted}${providerOf(wanted) === 'local' ? ` (${SMALL_JUDGE_WARNING})` : ''}` };
  }
  const providers = agentModels.map(providerOf);
  if (providers.every((p) => p === 'mock')) {
    return { judgeModel: 'mock-oracle', note: 'judge: mock-oracle (the scripted judge, not a real LLM: every agent model here is scripted)' };
  }
  if (providers.every((p) => p === 'mock' || p === 'local')) {
    const local = agentModels.find((m) => providerOf(m) === 'local' && !isCheckpointModel(m));
    const judge = strongestInstalledLocal(local?.startsWith(LOCAL_PREFIX) ? local : undefined) ?? local;
    if (judge)
      return {
        judgeModel: judge,
        note: `judge and code writer: ${judge}, the strongest local model installed (${SMALL_JUDGE_WARNING}; set PAU_JUDGE_MODEL to choose another)`,
      };
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

/**
 * The judge a training command needs (its data or rewards are never unjudged): --judge-model,
 * PAU_JUDGE_MODEL, or what chooseJudge picks for these models. `what` names the command in the error.
 */
export function requireJudge(agentModels: string[], explicit: string | undefined, what: string): string {
  let choice: JudgeChoice;
  try {
    choice = chooseJudge(agentModels, explicit);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (!choice.judgeModel) throw new UsageError(`${what} needs a judge: pass --judge-model M or set PAU_JUDGE_MODEL`);
  return choice.judgeModel;
}
