// Recording replay fixtures (test/fixtures/histories) from a test's own workflows.
import fs from 'node:fs';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { PROJECT_ROOT } from '../../config/env';
import { payloadCodec } from '../../config/payloadCodec';

/**
 * With PAU_RECORD_HISTORIES=1, writes the workflow's history to test/fixtures/histories/<file> and lists
 * its workflow id in index.json (how the replay fixtures of the SFT workflows and the DB-outage episode were recorded).
 */
export async function maybeRecordHistory(handle: WorkflowHandle, file: string): Promise<void> {
  if (process.env.PAU_RECORD_HISTORIES !== '1') return;
  const dir = path.join(PROJECT_ROOT, 'test', 'fixtures', 'histories');
  fs.writeFileSync(path.join(dir, file), `${JSON.stringify(JSON.parse(historyToJSON(await handle.fetchHistory())), null, 2)}\n`);
  const index = JSON.parse(fs.readFileSync(path.join(dir, 'index.json'), 'utf8')) as Record<string, string>;
  index[file] = handle.workflowId;
  const sorted = Object.fromEntries(Object.entries(index).sort(([a], [b]) => a.localeCompare(b)));
  fs.writeFileSync(path.join(dir, 'index.json'), `${JSON.stringify(sorted, null, 2)}\n`);
}

/**
 * The activities a workflow ran, from its history: `scheduled` (normal activities, by type) and `local`
 * (local activities, from the SDK's `core_local_activity` markers, by type), in order.
 */
export async function activitiesOf(handle: WorkflowHandle): Promise<{ scheduled: string[]; local: string[] }> {
  const events = (await handle.fetchHistory()).events ?? [];
  const scheduled = events.flatMap((e) => {
    const name = e.activityTaskScheduledEventAttributes?.activityType?.name;
    return name ? [name] : [];
  });
  const local = events.flatMap((e) => {
    const m = e.markerRecordedEventAttributes;
    const data = m?.markerName === 'core_local_activity' ? m.details?.data?.payloads?.[0]?.data : undefined;
    if (!data) return [];
    const type = (JSON.parse(Buffer.from(data).toString('utf8')) as { activity_type?: string; activityType?: string }) ?? {};
    return [type.activity_type ?? type.activityType ?? '?'];
  });
  return { scheduled, local };
}

/**
 * Every payload of a history (raw: as the server stores it), but the SDK's own bookkeeping in markers
 * (`patch-data`: a patch id; a local activity's `data`: its seq, type and times), which core writes
 * without the codec and which holds no run data.
 */
export function historyPayloads(history: unknown): Payload[] {
  const out: Payload[] = [];
  const walk = (v: unknown, key = ''): void => {
    if (Array.isArray(v)) {
      for (const x of v) walk(x, key);
      return;
    }
    if (typeof v !== 'object' || v === null || v instanceof Uint8Array) return;
    const o = v as Record<string, unknown>;
    if (Array.isArray(o.payloads) && key !== 'patch-data' && key !== 'data') out.push(...(o.payloads as Payload[]));
    for (const [k, x] of Object.entries(o)) if (k !== 'searchAttributes' && k !== 'header') walk(x, k);
  };
  walk(history);
  return out;
}

/** The history's payloads decrypted with this process's key (what the owner's UI shows), as one text. */
export async function decodedHistoryText(history: unknown): Promise<string> {
  const decoded = await payloadCodec('pass').decode(historyPayloads(history));
  return decoded.map((p) => Buffer.from(p.data ?? new Uint8Array()).toString('utf8')).join('\n');
}
