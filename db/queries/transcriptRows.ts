// Episode transcripts from Postgres: one run's (for the pages written beside its report) or one
// episode's (for `pau runs show RUN --episode ID`). Three queries per run, whatever its size.
import { and, asc, eq } from 'drizzle-orm';
import { workflowUiLink } from '../../config/services';
import type { Db } from '../client';
import { methods } from '../schema/datasets';
import { episodes, judgments, runs, steps } from '../schema/runs';
import { methodView, runNameSetting } from '../../domain/episode/names';
import { buildTranscript, type Transcript, type TranscriptJudgmentRow } from '../../domain/report/transcript';
import type { StoredStep } from '../../domain/episode/stepRecord';
import { entryPointOf } from '../../domain/dataset/entryPoint';

export interface LoadedTranscript {
  transcript: Transcript;
  /** The name calls are shown with. */
  entryPoint: string;
  /** The stored steps in order (the conversation as sent is rebuilt from them: domain/episode/conversation.ts). */
  steps: StoredStep[];
}

export async function loadTranscripts(db: Db, runId: string, episodeId?: string): Promise<LoadedTranscript[]> {
  const where = episodeId ? and(eq(episodes.runId, runId), eq(episodes.id, episodeId)) : eq(episodes.runId, runId);
  const eps = await db
    .select({ e: episodes, signature: methods.signature, entryPoint: methods.entryPoint, runConfig: runs.config })
    .from(episodes)
    .leftJoin(methods, eq(methods.id, episodes.methodId))
    .leftJoin(runs, eq(runs.id, episodes.runId))
    .where(where)
    .orderBy(asc(episodes.id));
  if (eps.length === 0) return [];
  const stepRows = await db
    .select({
      episodeId: steps.episodeId,
      idx: steps.idx,
      kind: steps.kind,
      agentMessage: steps.agentMessage,
      call: steps.call,
      observation: steps.observation,
    })
    .from(steps)
    .innerJoin(episodes, eq(episodes.id, steps.episodeId))
    .where(where)
    .orderBy(asc(steps.episodeId), asc(steps.idx));
  const judgmentRows = await db
    .select({ j: judgments })
    .from(judgments)
    .innerJoin(episodes, eq(episodes.id, judgments.episodeId))
    .where(where)
    .orderBy(asc(judgments.judgeModel));
  const stepsBy = new Map<string, StoredStep[]>();
  for (const s of stepRows) stepsBy.set(s.episodeId, [...(stepsBy.get(s.episodeId) ?? []), s]);
  const judgmentsBy = new Map<string, TranscriptJudgmentRow[]>();
  for (const { j } of judgmentRows) judgmentsBy.set(j.episodeId, [...(judgmentsBy.get(j.episodeId) ?? []), j]);
  return eps.map(({ e, signature, entryPoint, runConfig }) => {
    // What the agent saw: with the names anonymised, `f` (domain/episode/names.ts).
    const entry = entryPointOf({ entryPoint, signature });
    const view = signature === null ? null : methodView({ entryPoint: entry, signature }, runNameSetting(runConfig));
    return {
      entryPoint: view?.entryPoint ?? entry,
      steps: stepsBy.get(e.id) ?? [],
      transcript: buildTranscript({
        episode: e,
        signature: view?.signature ?? null,
        steps: stepsBy.get(e.id) ?? [],
        judgments: judgmentsBy.get(e.id) ?? [],
        uiLink: e.workflowId ? workflowUiLink(e.workflowId) : null,
      }),
    };
  });
}
