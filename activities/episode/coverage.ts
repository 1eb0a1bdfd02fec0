// Coverage without a judge: an episode of a run with no judge measures how much of the original its observed
// inputs reached, as the judge step would (the same calls, run once more on the original under coverage in one
// sandbox batch, which the workflow runs between these two activities on `pau-sandbox`; with placement `inline`,
// one activity on this worker's sandbox pool does all three), and keeps it on the episode row. A judged
// episode's coverage is its judgment's. Reports read either (db/queries/reportRows.ts).
import { ApplicationFailure } from '@temporalio/common';
import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { methods } from '../../db/schema/datasets';
import { episodes } from '../../db/schema/runs';
import { entryPointOf } from '../../domain/dataset/entryPoint';
import { observedCalls } from '../../domain/episode/observedCalls';
import { coverageShares } from '../../domain/judge/judgment';
import type { Coverage } from '../../domain/sandbox/schemas';
import { FAILURE_TYPES } from '../../domain/temporal/failureTypes';
import { loadSteps } from './steps';
import type { SandboxLimits } from '../../domain/sandbox/schemas';
import { createSandboxActivities } from '../sandbox/index';

/** What the coverage batch runs: the method's source and entry point, and the arguments the agent observed. */
export interface CoveragePlan {
  source: string;
  entryPoint: string;
  observedArgs: string[];
}

let localSandbox: ReturnType<typeof createSandboxActivities> | undefined;

export function createCoverageActivities(db: () => Db) {
  const activities = {
    async planEpisodeCoverage(input: { episodeId: string }): Promise<CoveragePlan> {
      const [row] = await db()
        .select({ m: methods })
        .from(episodes)
        .innerJoin(methods, eq(methods.id, episodes.methodId))
        .where(eq(episodes.id, input.episodeId))
        .limit(1);
      if (!row) throw ApplicationFailure.nonRetryable(`no episode ${JSON.stringify(input.episodeId)} (or its method)`, FAILURE_TYPES.judgeEpisodeNotFound);
      const observed = observedCalls(await loadSteps(db(), input.episodeId));
      return { source: row.m.code, entryPoint: entryPointOf(row.m), observedArgs: observed.map((o) => o.arguments) };
    },

    /** Records the shares (no observed call: 0 of each, as a judgment records it). */
    async recordEpisodeCoverage(input: { episodeId: string; coverage: Coverage | null; observed: number }): Promise<void> {
      const shares = coverageShares(input.coverage, input.observed);
      await db()
        .update(episodes)
        .set({ ...shares, updatedAt: new Date() })
        .where(eq(episodes.id, input.episodeId));
    },

    /** Placement `inline`: plan, run the batch on this worker's sandbox pool, record (no `pau-sandbox` worker needed). */
    async measureEpisodeCoverageHere(input: { episodeId: string; limits?: SandboxLimits }): Promise<void> {
      const plan = await activities.planEpisodeCoverage(input);
      localSandbox ??= createSandboxActivities();
      const batch =
        plan.observedArgs.length > 0
          ? await localSandbox.runMethodBatch({
              source: plan.source,
              entry: plan.entryPoint,
              calls: plan.observedArgs,
              coverage: true,
              ...(input.limits ? { limits: input.limits } : {}),
            })
          : null;
      await activities.recordEpisodeCoverage({ episodeId: input.episodeId, coverage: batch?.coverage ?? null, observed: plan.observedArgs.length });
    },
  };
  return activities;
}
