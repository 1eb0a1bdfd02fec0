// Chat from inside an activity: the episode turn and the judge build their prompts from Postgres and call
// `chat` with these deps (heartbeat while waiting, honour cancellation).
import { Context } from '@temporalio/activity';
import type { Db } from '../../db/client';

/** Inside an activity: heartbeat with progress (not a local activity: those cannot) and honour cancellation. */
export function activityChatDeps(db: () => Db) {
  const ctx = Context.current();
  if (ctx.info.isLocal) return { db, signal: ctx.cancellationSignal };
  return { db, onProgress: (what: string) => ctx.heartbeat(what), signal: ctx.cancellationSignal };
}
