// The `llmChat` activity (queue `pau`): one chat completion with tools, for callers whose prompts are
// small enough to pass through workflow history (judges, code generation). Episode turns build their
// prompts from Postgres instead (activities/episode/agentTurn.ts) and call `chat` directly.
import { Context } from '@temporalio/activity';
import type { Db } from '../../db/client';
import { chat, type ChatRequest, type ChatResult } from './chat';

/** Inside an activity: heartbeat with progress and honour cancellation. */
export function activityChatDeps(db: () => Db) {
  const ctx = Context.current();
  return { db, onProgress: (what: string) => ctx.heartbeat(what), signal: ctx.cancellationSignal };
}

export function makeLlmChat(db: () => Db) {
  return async function llmChat(req: ChatRequest): Promise<ChatResult> {
    return chat(req, activityChatDeps(db));
  };
}
