// Calibration activities (queue `pau`): the run row and its methods, each method's plan (the judge's
// held-out set, the candidate generator's Python), and the scores of each candidate, stored per method in
// the run's summary (`summary.methods[methodId]`) and summed up at the end (`summary.calibration`). The
// sandbox runs (the generator, the original, every candidate) happen in the workflow between them.
import fs from 'node:fs';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { eq, sql } from 'drizzle-orm';
import { PROJECT_ROOT } from '../../config/env';
import type { Db } from '../../db/client';
import { methods } from '../../db/schema/datasets';
import { runs } from '../../db/schema/runs';
import { lookupTableCodeMatch } from '../../domain/calibration/codeMatch';
import { codeMatchOf, codeMatchPlan, countedInputs, DEFAULT_HELDOUT } from '../../domain/judge/codeMatch';
import { summarizeCalibration, type CalibrationSummary } from '../../domain/calibration/summarize';
import type { CalibrationInput, CalibrationPlan, CandidateRun, MethodCalibration } from '../../domain/calibration/types';
import { DEFAULT_EQUALITY } from '../../domain/judge/outcomeEquality';
import { DEFAULT_BUDGETS } from '../../domain/episode/types';
import { inContextExamples } from '../../domain/inputs/generator';
import type { CallResult } from '../../domain/sandbox/schemas';
import { FAILURE_TYPES } from '../../domain/temporal/failureTypes';
import { callingWorkflowId } from '../common/workflowContext';
import { resolveMethods } from '../../db/queries/runs';
import { parseRunSummary } from '../../db/runDocuments';

/** The candidate generator (also the execution critic's alternatives: activities/training/execCritic.ts). */
export const GENERATOR_PATH = path.join(PROJECT_ROOT, 'activities', 'calibration', 'mutants.py');

export function createCalibrationActivities(db: () => Db) {
  async function loadMethod(methodId: string) {
    const [m] = await db().select().from(methods).where(eq(methods.id, methodId)).limit(1);
    if (!m) throw ApplicationFailure.nonRetryable(`no method ${JSON.stringify(methodId)}`, FAILURE_TYPES.methodNotFound);
    return m;
  }

  return {
    /** Creates (or resets) the run row; returns the methods to calibrate. */
    async startCalibration(input: CalibrationInput): Promise<string[]> {
      const ids = await resolveMethods(db(), input.config);
      const values = {
        id: input.runId,
        kind: 'calibration' as const,
        status: 'running' as const,
        config: { ...input.config, resolvedMethodIds: ids },
        workflowId: callingWorkflowId(),
        summary: { methods: {} },
        startedAt: new Date(),
        updatedAt: new Date(),
      };
      await db().insert(runs).values(values).onConflictDoUpdate({ target: runs.id, set: values });
      return ids;
    },

    async prepareCalibrationMethod(input: { methodId: string }): Promise<CalibrationPlan> {
      const m = await loadMethod(input.methodId);
      return {
        ...codeMatchPlan(m, DEFAULT_HELDOUT),
        generator: fs.readFileSync(GENERATOR_PATH, 'utf8'),
      };
    },

    /** Scores every candidate against the original and stores the method's row in the run's summary. */
    async recordCalibrationMethod(input: {
      runId: string;
      methodId: string;
      nGiven: number;
      raisingCounts?: boolean;
      /** The dataset's own exclusion reason (no candidates were run). */
      datasetExclusion?: string;
      original: CallResult[] | null;
      originalError?: string;
      candidates: CandidateRun[];
      generatorError?: string;
    }): Promise<MethodCalibration> {
      const counted = input.original ? countedInputs(input.original, input.nGiven, input.raisingCounts ?? false) : [];
      const excluded = input.datasetExclusion
        ? `excluded by the dataset: ${input.datasetExclusion}`
        : input.originalError
          ? `the original did not run: ${input.originalError}`
          : counted.length === 0
            ? 'no held-out input counts (none, or the original raised or hit a limit on all of them)'
            : undefined;
      // The lookup-table baseline over the examples an in-context episode shows (k = the call budget), scored
      // on the held-out set as the plan built it (the same deterministic set; recomputed here so the workflow
      // and its recorded histories stay as they are).
      let lookup: MethodCalibration['scores'] = [];
      if (!excluded && input.original) {
        const m = await loadMethod(input.methodId);
        const table = inContextExamples(m, DEFAULT_BUDGETS.maxCalls);
        const heldout = codeMatchPlan(m, DEFAULT_HELDOUT).heldout;
        // A dataset rebuilt since the plan would shift the indexes: no baseline rather than a wrong one.
        if (heldout.length === input.original.length) {
          const l = lookupTableCodeMatch(input.original, heldout, counted, table, DEFAULT_EQUALITY);
          lookup = [{ kind: 'lookup', site: `${table.length} in-context examples; ${l.unseen} held-out inputs outside the table`, codeMatch: l.codeMatch }];
        }
      }
      const row: MethodCalibration = {
        methodId: input.methodId,
        counted: counted.length,
        ...(excluded ? { excluded } : {}),
        ...(input.generatorError ? { generatorError: input.generatorError } : {}),
        scores: excluded
          ? []
          : input.candidates
              .map((c) => ({
                kind: c.kind,
                site: c.site,
                codeMatch: codeMatchOf(input.original ?? [], c.results, counted, DEFAULT_EQUALITY),
                ...(c.error ? { error: c.error.slice(0, 300) } : {}),
              }))
              .concat(lookup),
      };
      await db()
        .update(runs)
        .set({
          summary: sql`jsonb_set(coalesce(${runs.summary}, '{}'::jsonb) || jsonb_build_object('methods', coalesce(${runs.summary}->'methods', '{}'::jsonb)), array['methods', ${input.methodId}], ${JSON.stringify(row)}::jsonb)`,
          updatedAt: new Date(),
        })
        .where(eq(runs.id, input.runId));
      return row;
    },

    /** Sums the stored per-method rows up (summary.calibration) and closes the run. */
    async finishCalibration(input: { runId: string; failed: number }): Promise<CalibrationSummary> {
      const [r] = await db().select({ summary: runs.summary }).from(runs).where(eq(runs.id, input.runId)).limit(1);
      const stored = r ? parseRunSummary('calibration', r.summary, input.runId) : null;
      const rows = Object.values(stored?.methods ?? {});
      const summary = summarizeCalibration(rows);
      await db()
        .update(runs)
        .set({
          status: 'completed',
          summary: sql`coalesce(${runs.summary}, '{}'::jsonb) || ${JSON.stringify({ calibration: summary, failedMethods: input.failed })}::jsonb`,
          finishedAt: new Date(),
          updatedAt: new Date(),
        })
        .where(eq(runs.id, input.runId));
      return summary;
    },
  };
}

export type CalibrationActivities = ReturnType<typeof createCalibrationActivities>;
