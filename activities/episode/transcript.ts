// An episode as others read it (judges, reports, training data): the episode row, its steps in order,
// the calls the agent observed, and the chat messages the model saw (domain/episode/conversation.ts).
import { eq } from 'drizzle-orm';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { Db } from '../../db/client';
import { episodes } from '../../db/schema/runs';
import { messagesFromSteps } from '../../domain/episode/conversation';
import { loadSteps } from './steps';
import { observedCalls, type ObservedCall } from '../../domain/episode/observedCalls';

export type { ObservedCall };

type StepRecord = Awaited<ReturnType<typeof loadSteps>>[number];

export interface EpisodeTranscript {
  episode: typeof episodes.$inferSelect;
  steps: StepRecord[];
  observedCalls: ObservedCall[];
  finalDescription: string | null;
  messages: ChatCompletionMessageParam[];
}

/** Everything about one episode; undefined when it does not exist. */
export async function loadEpisodeTranscript(db: Db, episodeId: string): Promise<EpisodeTranscript | undefined> {
  const [episode] = await db.select().from(episodes).where(eq(episodes.id, episodeId)).limit(1);
  if (!episode) return undefined;
  const rows = await loadSteps(db, episodeId);
  return { episode, steps: rows, observedCalls: observedCalls(rows), finalDescription: episode.finalDescription, messages: messagesFromSteps(rows) };
}
