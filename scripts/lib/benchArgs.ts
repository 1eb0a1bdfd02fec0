// Command-line pieces shared by the verbs that start benchmark runs (`bench run`, `schedule nightly`):
// which methods × models × settings × samples, which judge, and the registry check for model names.
import { z } from 'zod';
import type { BenchmarkConfig } from '../../domain/bench/types';
import { SETTINGS } from '../../domain/episode/types';
import { models } from '../../config/models';
import { UsageError } from './args';
import { isCheckpointModel } from '../../domain/training/checkpointIds';
import { checkpointBases, checkSelfJudge, chooseJudge, type JudgeChoice } from '../client/judgeChoice';

/** `a,b, c` → ['a', 'b', 'c'] */
export const commaList = z.string().transform((s) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean),
);

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

/** Options for what a run covers and who judges it (spread into a verb's defineOptions). */
export const runSelectionFields = {
  split: z.enum(['train', 'validation', 'test']).default('test'),
  models: commaList.pipe(z.array(z.string()).min(1, 'name at least one model')),
  settings: commaList.pipe(z.array(z.enum(SETTINGS)).min(1)).default(['interactive', 'in-context']),
  limit: z.coerce.number().int().min(1).optional(),
  samples: z.coerce.number().int().min(1).default(1),
  judge: z.enum(['on', 'off']).default('on'),
  'judge-model': z.string().min(1).optional(),
  /** Let a judge that is an agent, its base or a checkpoint of one score the run (recorded in the config). */
  'allow-self-judge': z.boolean().optional(),
  /** Judge with a judge whose card failed; the report then marks its scores (issue 27). */
  'allow-unqualified-judge': z.boolean().optional(),
};

type RunSelection = z.infer<z.ZodObject<typeof runSelectionFields>>;

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
