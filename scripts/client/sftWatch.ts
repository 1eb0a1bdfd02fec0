// Live progress of the SFT workflows for the CLI: the benchmark phase from Postgres (episodes done/total),
// the training phase from the trainer activity's heartbeat (step/total, loss, tokens per second).
import { defaultPayloadConverter, type WorkflowHandle } from '@temporalio/client';
import { payloadCodec } from '../../config/payloadCodec';
import type { Db } from '../../db/client';
import { runProgress } from '../../db/queries/runs';
import { progressLine } from './bench';
import { watchWorkflow } from './watchWorkflow';

interface Beat {
  phase?: string;
  step?: number;
  total?: number;
  loss?: number | null;
  tokensPerS?: number | null;
  lastSavedStep?: number;
}

async function trainerBeat(handle: WorkflowHandle): Promise<{ activity: string; beat: Beat } | undefined> {
  const d = await handle.describe().catch(() => undefined);
  for (const a of d?.raw.pendingActivities ?? []) {
    const name = a.activityType?.name ?? '';
    if (name !== 'runTrainerJob' && name !== 'prepareSftData') continue;
    const p = a.heartbeatDetails?.payloads?.[0];
    // describe().raw is the server's form: the heartbeat is encrypted (config/payloadCodec.ts).
    const decoded = p
      ? (
          await payloadCodec('pass')
            .decode([p])
            .catch(() => [])
        )[0]
      : undefined;
    const beat = decoded ? (defaultPayloadConverter.fromPayload(decoded) as Beat) : {};
    return { activity: name, beat };
  }
  return undefined;
}

/** Waits for the workflow, printing a progress line every few seconds (in place on a terminal). */
export async function watchSft<T>(db: Db, handle: WorkflowHandle, runIds: () => string[], out: NodeJS.WriteStream = process.stdout): Promise<T> {
  const started = Date.now();
  const line = async (): Promise<string> => {
    const t = await trainerBeat(handle);
    if (t) {
      const b = t.beat;
      const el = Math.round((Date.now() - started) / 1000);
      return t.activity === 'prepareSftData'
        ? `preparing the data file and base model  elapsed ${el}s`
        : `trainer ${b.phase ?? 'starting'}  step ${b.step ?? 0}/${b.total ?? '?'}  loss ${b.loss?.toFixed(4) ?? '-'}  tok/s ${b.tokensPerS?.toFixed(1) ?? '-'}  saved at ${b.lastSavedStep ?? '-'}  elapsed ${el}s`;
    }
    let l = '';
    for (const id of runIds()) {
      const p = await runProgress(db, id).catch(() => undefined);
      if (p && p.status === 'running') l = `${id}: ${progressLine(p, p.startedAt?.getTime() ?? started)}`;
    }
    return l;
  };
  return watchWorkflow<T>(handle, line, { out, pollMs: { tty: 1000, plain: 3000 }, plainMinIntervalMs: 10_000 });
}
