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
