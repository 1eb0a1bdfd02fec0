// A stored SFT data set and its examples, read by the SFT trainer activity and `sft export` alike (the build that
// writes them is activities/training/sftData.ts).
import { and, asc, eq } from 'drizzle-orm';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { Db } from '../client';
import { parseJsonb } from '../jsonb';
import { sftDatasets, sftExamples } from '../schema/training';
import { chatMessagesSchema, chatToolsSchema, sftBuildConfigSchema, sftBuildSummarySchema } from '../../domain/training/sftData';

export interface StoredSftExample {
  episodeId: string;
  methodId: string;
  source: string;
  messages: ChatCompletionMessageParam[];
  tools: ChatCompletionTool[] | null;
  score: number | null;
  codeMatch: number | null;
  tokens: number;
}

export async function loadSftDataset(db: Db, name: string) {
  const [ds] = await db.select().from(sftDatasets).where(eq(sftDatasets.name, name)).limit(1);
  if (!ds) return undefined;
  const where = (column: string) => ({ table: 'sft_datasets', column, row: name });
  return {
    ...ds,
    config: parseJsonb(sftBuildConfigSchema, ds.config, where('config')),
    summary: parseJsonb(sftBuildSummarySchema.nullable(), ds.summary, where('summary')),
  };
}

export async function loadSftExamples(db: Db, name: string): Promise<StoredSftExample[]> {
  const ds = await loadSftDataset(db, name);
  if (!ds) return [];
  const rows = await db
    .select()
    .from(sftExamples)
    .where(and(eq(sftExamples.dataset, name), eq(sftExamples.runId, ds.runId)))
    .orderBy(asc(sftExamples.episodeId));
  return rows.map((r) => ({
    episodeId: r.episodeId,
    methodId: r.methodId,
    source: r.source,
    messages: parseJsonb(chatMessagesSchema, r.messages, { table: 'sft_examples', column: 'messages', row: r.episodeId }),
    tools: parseJsonb(chatToolsSchema.nullable(), r.tools, { table: 'sft_examples', column: 'tools', row: r.episodeId }),
    score: r.score,
    codeMatch: r.codeMatch,
    tokens: r.tokens,
  }));
}
