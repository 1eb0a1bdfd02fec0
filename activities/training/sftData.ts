// SFT data in Postgres (queue `pau`): `buildSftExamples` turns a finished, judged teacher run into kept
// examples (one upserted row per kept episode, keyed by run and episode, so a retry rewrites the same rows)
// and the data set's summary; reading a data set back (export, training) is db/queries/sftData.ts.
import { type SampledTokens, sampledTokensOf } from '../../domain/training/sampledTokens';
import { ApplicationFailure } from '@temporalio/common';
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import type { Db } from '../../db/client';
import { llmCalls } from '../../db/schema/llm';
import { steps } from '../../db/schema/runs';
import { sftDatasets, sftExamples } from '../../db/schema/training';
import { loadEpisodeRows } from '../../db/queries/reportRows';
import { loadEpisodeTranscript } from '../episode/transcript';
import { FAILURE_TYPES } from '../../domain/temporal/failureTypes';
import { servedLine, type ServedTurn } from '../../domain/training/servedLine';
import { emptySummary, type SftBuildConfig, type SftBuildSummary, sftConversation, sftVerdict, tally, unionTools } from '../../domain/training/sftData';
import type { StoredSftExample } from '../../db/queries/sftData';

/** The tools each assistant turn was offered, from the ledger entry of its request (what was sent). */
export async function toolsOffered(db: Db, hashes: string[]): Promise<ChatCompletionTool[]> {
  if (hashes.length === 0) return [];
  const rows = await db.select({ h: llmCalls.requestHash, request: llmCalls.request }).from(llmCalls).where(inArray(llmCalls.requestHash, hashes));
  const byHash = new Map(rows.map((r) => [r.h, (r.request as { tools?: ChatCompletionTool[] } | null)?.tools]));
  return unionTools(hashes.map((h) => byHash.get(h)));
}

export async function buildSftData(db: Db, config: SftBuildConfig, runId: string): Promise<SftBuildSummary> {
  const rows = await loadEpisodeRows(db, runId, config.judgeModel);
  const summary = emptySummary(config, runId);
  for (const r of rows) {
    const t = r.status === 'completed' ? await loadEpisodeTranscript(db, r.episodeId) : undefined;
    const verdict = sftVerdict(
      {
        status: r.status,
        judged: r.judged,
        score: r.score,
        unparsable: r.unparsable,
        codeMatchUnobserved: r.codeMatchUnobserved ?? null,
        hasDescription: !!t?.finalDescription?.trim(),
        contradictsObserved: r.diagnostics?.contradictsObserved ?? null,
      },
      config,
    );
    let tokens = 0;
    if (verdict.keep && t) {
      const assistants = t.steps.filter((s) => s.kind === 'assistant');
      const last = assistants.at(-1);
      tokens = last ? last.tokensIn + last.tokensOut : 0;
      const hashes = assistants.map((s) => s.agentMessage?.requestHash).filter((h): h is string => !!h);
      const tools = await toolsOffered(db, hashes);
      const values = {
        runId,
        episodeId: r.episodeId,
        dataset: config.name,
        methodId: r.methodId,
        source: r.source,
        setting: r.setting,
        teacher: r.model,
        judgeModel: config.judgeModel,
        messages: sftConversation(t.messages),
        tools: tools.length > 0 ? tools : null,
        score: r.score,
        codeMatch: r.codeMatch,
        tokens,
      };
      await db
        .insert(sftExamples)
        .values(values)
        .onConflictDoUpdate({ target: [sftExamples.runId, sftExamples.episodeId], set: { ...values, createdAt: sql`${sftExamples.createdAt}` } });
    } else {
      // A rebuild with stricter thresholds drops examples kept before.
      await db.delete(sftExamples).where(and(eq(sftExamples.runId, runId), eq(sftExamples.episodeId, r.episodeId)));
    }
    tally(summary, r.source, verdict, tokens);
  }
  const now = new Date();
  await db
    .insert(sftDatasets)
    .values({ name: config.name, teacher: config.teacher, judgeModel: config.judgeModel, runId, config, summary })
    .onConflictDoUpdate({ target: sftDatasets.name, set: { teacher: config.teacher, judgeModel: config.judgeModel, runId, config, summary, updatedAt: now } });
  return summary;
}

/**
 * The assistant turns of each episode as served, in order: the ledger request each was generated from, its
 * finish reason and its reasoning (domain/training/servedLine.ts).
 */
export async function servedTurns(db: Db, episodeIds: readonly string[]): Promise<Map<string, ServedTurn[]>> {
  const out = new Map<string, ServedTurn[]>();
  if (episodeIds.length === 0) return out;
  const rows = await db
    .select({ ep: steps.episodeId, m: steps.agentMessage })
    .from(steps)
    .where(and(inArray(steps.episodeId, [...episodeIds]), eq(steps.kind, 'assistant')))
    .orderBy(asc(steps.episodeId), asc(steps.idx));
  const msgs = rows.map((r) => ({ ep: r.ep, m: (r.m ?? {}) as { requestHash?: string; finishReason?: string | null; reasoningContent?: string | null } }));
  const hashes = [...new Set(msgs.flatMap((r) => (r.m.requestHash ? [r.m.requestHash] : [])))];
  const requests = new Map<string, unknown>();
  const sampled = new Map<string, SampledTokens | null>();
  for (let i = 0; i < hashes.length; i += 500) {
    const got = await db
      .select({ h: llmCalls.requestHash, request: llmCalls.request, response: llmCalls.response })
      .from(llmCalls)
      .where(inArray(llmCalls.requestHash, hashes.slice(i, i + 500)));
    for (const g of got) {
      requests.set(g.h, g.request);
      sampled.set(g.h, sampledTokensOf(g.response));
    }
  }
  for (const r of msgs) {
    const turn: ServedTurn = {
      request: r.m.requestHash ? requests.get(r.m.requestHash) : undefined,
      finishReason: r.m.finishReason ?? null,
      reasoningContent: r.m.reasoningContent ?? null,
      sampled: r.m.requestHash ? (sampled.get(r.m.requestHash) ?? null) : null,
    };
    out.set(r.ep, [...(out.get(r.ep) ?? []), turn]);
  }
  return out;
}

/**
 * The trainer's input: one line per example with each assistant message's served request (its tools), its
 * reasoning and `length_cut` (domain/training/servedLine.ts). An example whose requests do not match its
 * conversation is left out and counted in `notAsServed` (never trained on a prompt that was not sent).
 */
export async function sftTrainerJsonl(
  db: Db,
  examples: readonly StoredSftExample[],
): Promise<{ text: string; lengthCutMessages: number; notAsServed: number; lines: number }> {
  const turns = await servedTurns(
    db,
    examples.map((e) => e.episodeId),
  );
  let cutCount = 0;
  let notAsServed = 0;
  const lines: string[] = [];
  for (const e of examples) {
    const r = servedLine(e.messages, turns.get(e.episodeId) ?? []);
    if (!r.ok) {
      notAsServed++;
      continue;
    }
    cutCount += r.lengthCut.length;
    lines.push(`${JSON.stringify(r.line)}\n`);
  }
  return { text: lines.join(''), lengthCutMessages: cutCount, notAsServed, lines: lines.length };
}

export function createSftDataActivities(db: () => Db) {
  return {
    /** After the teacher run: keep the passing episodes as examples, store the data set and its summary. */
    async buildSftExamples(input: { config: SftBuildConfig; runId: string }): Promise<SftBuildSummary> {
      return buildSftData(db(), input.config, input.runId);
    },
  };
}

/** Non-retryable: the data set is missing or has no examples (the caller names it). */
export function sftDatasetFailure(name: string, examples: number): ApplicationFailure {
  return examples < 0
    ? ApplicationFailure.nonRetryable(`SFT data set ${JSON.stringify(name)} does not exist (pau sft build --name ${name})`, FAILURE_TYPES.sftDatasetNotFound)
    : ApplicationFailure.nonRetryable(
        `SFT data set ${JSON.stringify(name)} has no examples (lower the thresholds or run more episodes)`,
        FAILURE_TYPES.sftDatasetEmpty,
      );
}
