// Recording replay fixtures (test/fixtures/histories) from a test's own workflows.
import fs from 'node:fs';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { PROJECT_ROOT } from '../../config/env';

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
