// Chat from inside an activity: the episode turn and the judge build their prompts from Postgres and call
// `chat` with these deps (heartbeat while waiting, honour cancellation).
import { Context } from '@temporalio/activity';
import type { Db } from '../../db/client';
import type { ModelEndpoints } from './endpoints';

/** Inside an activity: heartbeat with progress (not a local activity: those cannot) and honour cancellation. */
export function activityChatDeps(db: () => Db, endpoints: ModelEndpoints) {
  const ctx = Context.current();
  if (ctx.info.isLocal) return { db, endpoints, signal: ctx.cancellationSignal };
  return { db, endpoints, onProgress: (what: string) => ctx.heartbeat(what), signal: ctx.cancellationSignal };
}
