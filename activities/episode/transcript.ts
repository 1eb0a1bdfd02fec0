// An episode as others read it (judges, reports, training data): the episode row, its steps in order,
// the calls the agent observed, and the chat messages the model saw. Also rebuilds the conversation for
// the next turn, so the conversation lives in Postgres and never in workflow history.
import { eq } from 'drizzle-orm';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { Db } from '../../db/client';
import { episodes } from '../../db/schema/runs';
import { TEXT_RESULTS_HEADING } from '../../domain/episode/prompts';
import { loadSteps } from './steps';
import type { StoredStep } from '../../domain/episode/stepRecord';
import { observedCalls, type ObservedCall } from '../../domain/episode/observedCalls';

export type { ObservedCall };

type StepRecord = Awaited<ReturnType<typeof loadSteps>>[number];

/**
 * The chat messages the model saw, rebuilt from the steps (example steps are part of the user prompt).
 * Results of calls the model wrote as text (no native tool call to answer) come back as one user
 * message per turn: `Results:` then `f(args) -> result` lines.
 */
export function messagesFromSteps(rows: StoredStep[]): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  let textResults: string[] = [];
  const flush = () => {
    if (textResults.length > 0) out.push({ role: 'user', content: [TEXT_RESULTS_HEADING, ...textResults].join('\n') });
    textResults = [];
  };
  for (const s of rows) {
    const m = s.agentMessage ?? {};
    const obs = s.observation;
    const call = s.call ?? {};
    if ((s.kind === 'call' || s.kind === 'problem' || s.kind === 'submit') && (call.source === 'text' || call.source === 'unparsable')) {
      const text = obs?.text ?? '(no result)';
      textResults.push(call.label ? `${call.label} -> ${text}` : text);
      continue;
    }
    flush();
    switch (s.kind) {
      case 'system':
        out.push({ role: 'system', content: m.content ?? '' });
        break;
      case 'user':
        out.push({ role: 'user', content: m.content ?? '' });
        break;
      case 'assistant': {
        // reasoningContent (stored by agentTurn) is not sent back: some providers reject it, and training
        // renders each request as sent (domain/training/servedLine.ts)
        const toolCalls = m.toolCalls ?? [];
        out.push({
          role: 'assistant',
          content: m.content ?? null,
          ...(toolCalls.length > 0
            ? { tool_calls: toolCalls.map((t) => ({ id: t.id, type: 'function' as const, function: { name: t.name, arguments: t.arguments } })) }
            : {}),
        });
        break;
      }
      case 'call':
      case 'problem':
      case 'submit':
        if (call.toolCallId) out.push({ role: 'tool', tool_call_id: call.toolCallId, content: obs?.text ?? '(no result)' });
        break;
      default:
        break;
    }
  }
  flush();
  return out;
}

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
