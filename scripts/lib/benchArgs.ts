// Command-line pieces shared by the verbs that start benchmark runs (`bench run`, `schedule nightly`): the
// config and the judge their selection options (scripts/options/runSelection.ts) decide, and the registry check
// for model names.
import type { z } from 'zod';
import type { BenchmarkConfig } from '../../domain/bench/types';
import type { runSelectionFields } from '../options/runSelection';
import type { CommandOptions } from './options';
import { models } from '../../config/models';
import { UsageError } from './args';
import type { Db } from '../../db/client';
import { methodSplits } from '../../db/queries/runs';
import { namedMethodsRefusal } from '../../domain/training/trainingSplit';
import { isCheckpointModel } from '../../domain/training/checkpointIds';
import { EXEC_CRITIC, isExecCritic } from '../../domain/training/execCritic';
import { checkpointBases, checkSelfJudge, chooseJudge, type JudgeChoice } from '../client/judgeChoice';

/**
 * Every name must be in the model registry (or be a `ckpt:<id>`, looked up in Postgres when it is called);
 * otherwise a usage error naming the unknown one.
 */
export function requireKnownModels(names: readonly string[]): void {
  for (const m of names) {
    if (isCheckpointModel(m)) continue;
    try {
      models().get(m);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  }
}

/**
 * A step critic: `exec` (the execution critic, domain/training/execCritic.ts) or a model as requireKnownModels
 * takes it; anything else is a usage error (exit 2) naming the flag.
 */
export function requireCritic(name: string, flag = '--critic'): void {
  if (isExecCritic(name)) return;
  try {
    requireKnownModels([name]);
  } catch (err) {
    throw new UsageError(`${flag} ${name} is neither \`${EXEC_CRITIC}\` (the execution critic) nor a known model: ${(err as Error).message}`);
  }
}

type RunSelection = z.infer<CommandOptions<typeof runSelectionFields>['schema']>;

/** The part of a run's config the selection options decide (models checked against the registry). */
export function selectionConfig(v: RunSelection, dataset: string): BenchmarkConfig {
  requireKnownModels([...v.models, ...(v['judge-model'] ? [v['judge-model']] : [])]);
  return {
    dataset,
    split: v.split,
    models: v.models,
    settings: v.settings,
    samples: v.samples,
    ...(v.limit ? { limit: v.limit } : {}),
  };
}

/**
 * `--judge off`, else chooseJudge's rule (a real-model run is never judged silently by the mock, nor by one
 * of its agents); an explicit judge that is an agent, its base or a checkpoint of one is refused (exit 2)
 * unless --allow-self-judge, and then recorded in the choice (judgeFields puts it in the run's config).
 */
export async function judgeFromArgs(v: RunSelection): Promise<JudgeChoice> {
  if (v.judge === 'off') return { judgeModel: null, note: 'judge: off (--judge off)' };
  const bases = await checkpointBases([...v.models, ...(v['judge-model'] ? [v['judge-model']] : [])]);
  let choice: JudgeChoice;
  try {
    choice = chooseJudge(v.models, v['judge-model'], bases);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  // The judge is also the code writer (a run's coderModel defaults to its judge).
  const pairs = checkSelfJudge(v.models, [{ model: choice.judgeModel, role: 'judge' }], {
    allow: v['allow-self-judge'],
    bases,
    otherFlags: '--judge-model M or PAU_JUDGE_MODEL',
  });
  return pairs.length > 0
    ? {
        ...choice,
        selfJudge: pairs,
        note: `${choice.note}; SELF-JUDGING forced (--allow-self-judge): ${pairs.map((p) => `${p.judge} ${p.relation} ${p.agent}`).join(', ')}`,
      }
    : choice;
}

/**
 * Methods named on the command line (`bench run --methods`, `grpo train --methods | --eval-methods`) must be of
 * `split` in the data set: otherwise a usage error (exit 2) naming those that are not, before anything starts.
 */
export async function requireMethodsOfSplit(
  db: Db,
  what: string,
  q: { dataset: string; split: string; methodIds: readonly string[]; allowTestSplit: boolean | undefined },
): Promise<void> {
  const refusal = namedMethodsRefusal(what, q.dataset, q.split, await methodSplits(db, q.dataset, q.methodIds), q.methodIds, q.allowTestSplit);
  if (refusal) throw new UsageError(refusal);
}
