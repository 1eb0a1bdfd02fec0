// One row per episode of a run, joined with its method's source and its judgment by one judge model.
import { and, desc, eq, sql } from 'drizzle-orm';
import { workflowUiLink } from '../../config/services';
import type { Db } from '../client';
import { methods } from '../schema/datasets';
import { episodes, judgments, runs } from '../schema/runs';
import { parseJsonb } from '../jsonb';
import { episodeDiagnosticsSchema } from '../../domain/judge/diagnostics';
import { judgeModeOf } from '../../domain/judge/card';
import type { RunInfo } from '../../domain/report/renderHtml';
import type { EpisodeRow } from '../../domain/report/summarize';
import type { ToolCallSourceRow } from '../../domain/report/toolCallSources';

export type { RunInfo };

/** The judge models that judged this run's episodes, most judgments first (then most recent). */
export async function judgeModelsOf(db: Db, runId: string): Promise<{ judgeModel: string; n: number }[]> {
  const rows = await db
    .select({ judgeModel: judgments.judgeModel, n: sql<number>`count(*)::int`, last: sql<string>`max(${judgments.updatedAt})` })
    .from(judgments)
    .innerJoin(episodes, eq(episodes.id, judgments.episodeId))
    .where(eq(episodes.runId, runId))
    .groupBy(judgments.judgeModel)
    .orderBy(desc(sql`count(*)`), desc(sql`max(${judgments.updatedAt})`));
  return rows.map((r) => ({ judgeModel: r.judgeModel, n: Number(r.n) }));
}

export async function loadRun(db: Db, runId: string): Promise<RunInfo | undefined> {
  const [r] = await db.select().from(runs).where(eq(runs.id, runId)).limit(1);
  if (!r) return undefined;
  return {
    id: r.id,
    kind: r.kind,
    status: r.status,
    config: r.config,
    workflowId: r.workflowId,
    startedAt: r.startedAt?.toISOString() ?? null,
    finishedAt: r.finishedAt?.toISOString() ?? null,
  };
}

/** The most recent run of a kind (for `report --latest`). */
export async function latestRunId(db: Db, kind = 'benchmark'): Promise<string | undefined> {
  const [r] = await db
    .select({ id: runs.id })
    .from(runs)
    .where(eq(runs.kind, kind as 'benchmark'))
    .orderBy(desc(runs.createdAt))
    .limit(1);
  return r?.id;
}

export async function loadEpisodeRows(db: Db, runId: string, judgeModel: string | null): Promise<EpisodeRow[]> {
  const rows = await db
    .select({
      e: episodes,
      source: methods.source,
      codeMatchExclusion: methods.codeMatchExclusion,
      gold: methods.goldDescription,
      hasMethod: methods.id,
      j: judgments,
    })
    .from(episodes)
    .leftJoin(methods, eq(methods.id, episodes.methodId))
    // No judge yet: join on nothing (a NUL-byte sentinel would be rejected by Postgres as invalid UTF-8).
    .leftJoin(judgments, judgeModel === null ? sql`false` : and(eq(judgments.episodeId, episodes.id), eq(judgments.judgeModel, judgeModel)))
    .where(eq(episodes.runId, runId))
    .orderBy(episodes.id);
  return rows.map(({ e, source, codeMatchExclusion, gold, hasMethod, j }) => {
    const diagnostics = j ? parseJsonb(episodeDiagnosticsSchema.nullable(), j.diagnostics, { table: 'judgments', column: 'diagnostics', row: e.id }) : null;
    return {
      episodeId: e.id,
      methodId: e.methodId,
      source: source ?? e.methodId.split('/')[0] ?? 'unknown',
      model: e.model,
      setting: e.setting,
      sample: e.sample,
      status: e.status,
      endReason: e.endReason,
      judged: j !== null,
      score: j?.score ?? null,
      unparsable: (j?.unparsable ?? 0) > 0,
      codeMatch: j?.codeMatch ?? null,
      codeMatchUnobserved: diagnostics?.codeMatchUnobserved ?? null,
      // The judgment's coverage, else the episode's own (measured when its run has no judge).
      statementCoverage: j?.statementCoverage ?? e.statementCoverage ?? null,
      branchCoverage: j?.branchCoverage ?? e.branchCoverage ?? null,
      diagnostics,
      callsMade: e.callsMade,
      inContextK: e.inContextK,
      codeMatchExcluded: codeMatchExclusion !== null && codeMatchExclusion !== undefined,
      ...(hasMethod ? { judgeMode: judgeModeOf({ goldDescription: gold }) } : {}),
      tokensIn: e.tokensIn,
      tokensOut: e.tokensOut,
      costUsd: e.costUsd,
      workflowId: e.workflowId,
      uiLink: e.workflowId ? workflowUiLink(e.workflowId) : null,
    };
  });
}

/** Per model: where the interactive episodes' tool calls came from (issue 11). */
export async function loadToolCallSources(db: Db, runId: string): Promise<ToolCallSourceRow[]> {
  const r = await db.execute(sql`
    select e.model as model,
           count(*)::int as turns,
           coalesce(sum(case when coalesce(s.agent_message->>'toolCallSource', 'native') = 'native'
                             then jsonb_array_length(coalesce(s.agent_message->'toolCalls', '[]'::jsonb)) else 0 end), 0)::int as native,
           coalesce(sum(case when s.agent_message->>'toolCallSource' = 'text' then (s.agent_message->>'callCount')::int else 0 end), 0)::int as text,
           count(*) filter (where s.agent_message->>'toolCallSource' = 'unparsable')::int as unparsable
      from steps s join episodes e on e.id = s.episode_id
     where e.run_id = ${runId} and s.kind = 'assistant' and e.setting = 'interactive'
     group by e.model order by e.model`);
  return (r.rows as Record<string, unknown>[]).map((x) => ({
    model: String(x.model),
    turns: Number(x.turns),
    native: Number(x.native),
    text: Number(x.text),
    unparsable: Number(x.unparsable),
  }));
}
