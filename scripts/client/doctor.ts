// Starts the doctor workflow and waits for its table. Shared by `pau doctor` and `pau start`.
import type { Client } from '@temporalio/client';
import { TASK_QUEUES } from '../../domain/temporal/queues';
import { startDoctor } from './starters';
import { workflowUiLink } from '../../config/services';
import type { DoctorPartResult } from '../../activities/doctor/checkDatabase';
import { formatTable } from '../../domain/report/table';

export interface DoctorReport {
  workflowId: string;
  results: DoctorPartResult[];
  ok: boolean;
  uiLink: string;
}

export async function runDoctor(client: Client, opts: { timeoutMs?: number; queueWaitSeconds?: number } = {}): Promise<DoctorReport> {
  const timeoutMs = opts.timeoutMs ?? 180_000;
  const workflowId = `doctor/${new Date().toISOString().replace(/[:.]/g, '-')}`;
  const handle = await startDoctor(client, workflowId, { timeoutMs, queueWaitSeconds: opts.queueWaitSeconds ?? 30 });
  let results: DoctorPartResult[];
  try {
    results = await handle.result();
  } catch (err) {
    // The workflow itself did not finish: no worker serves the `pau` queue's workflows.
    results = [
      { part: 'workflow', ok: false, detail: `doctor workflow did not complete: ${(err as Error).message} (is a worker running on ${TASK_QUEUES.main}?)` },
    ];
  }
  return { workflowId, results, ok: results.every((r) => r.ok), uiLink: workflowUiLink(workflowId) };
}

export function formatDoctor(report: DoctorReport): string {
  const queueOf: Record<string, string> = { postgres: TASK_QUEUES.main, sandbox: TASK_QUEUES.sandbox, gpu: TASK_QUEUES.gpu, workflow: TASK_QUEUES.main };
  return formatTable(
    ['part', 'queue', 'result', 'detail'],
    report.results.map((r) => [r.part, queueOf[r.part] ?? '', r.ok ? 'PASS' : 'FAIL', r.detail]),
  );
}
