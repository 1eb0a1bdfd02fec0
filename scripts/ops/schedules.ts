// Benchmark Schedules (Temporal Schedules): create-or-update idempotently, and the operations on them.
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client, type ScheduleDescription, type ScheduleOptions } from '@temporalio/client';
import type { BenchmarkConfig } from '../../domain/bench/types';
import { scheduledBenchmarkAction } from '../client/starters';
import type { ScheduledBenchmarkInput } from '../../workflows/ops/scheduledBenchmarkWorkflow';

export type OverlapPolicy = keyof typeof ScheduleOverlapPolicy;

export interface NightlyOptions {
  scheduleId: string;
  /** HH:MM, 24-hour. */
  at: string;
  timezone: string;
  config: BenchmarkConfig;
  overlap: OverlapPolicy;
  /** How late a missed run may still start (after an outage), e.g. '1 hour'. */
  catchupWindow: string;
  paused?: boolean;
}

export function scheduleOptions(o: NightlyOptions): ScheduleOptions {
  const [hour, minute] = o.at.split(':').map((x) => Number.parseInt(x, 10));
  const input: ScheduledBenchmarkInput = { scheduleId: o.scheduleId, config: o.config };
  return {
    scheduleId: o.scheduleId,
    spec: { calendars: [{ hour: hour ?? 0, minute: minute ?? 0 }], timezone: o.timezone },
    action: scheduledBenchmarkAction(input),
    policies: { overlap: ScheduleOverlapPolicy[o.overlap], catchupWindow: o.catchupWindow, pauseOnFailure: false },
    state: { paused: o.paused ?? false, note: `managed by \`pau schedule nightly\`` },
  };
}

/** Creates the schedule, or updates it in place when it exists (same id). */
export async function upsertNightly(client: Client, o: NightlyOptions): Promise<'created' | 'updated'> {
  const options = scheduleOptions(o);
  try {
    await client.schedule.create(options);
    return 'created';
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
  await client.schedule.getHandle(o.scheduleId).update((prev) => ({
    ...prev,
    spec: options.spec,
    action: options.action,
    policies: { ...prev.policies, ...options.policies },
  }));
  return 'updated';
}

export interface ScheduleRow {
  id: string;
  paused: boolean;
  next: string;
  summary: string;
}

export async function listSchedules(client: Client): Promise<ScheduleRow[]> {
  const rows: ScheduleRow[] = [];
  for await (const s of client.schedule.list()) {
    const next = s.info.nextActionTimes[0];
    rows.push({
      id: s.scheduleId,
      paused: s.state.paused,
      next: next ? next.toISOString() : '-',
      summary: s.action?.type === 'startWorkflow' ? s.action.workflowType : '',
    });
  }
  return rows.sort((a, b) => a.id.localeCompare(b.id));
}

export function describeLines(d: ScheduleDescription): string[] {
  const cal = d.spec.calendars?.map((c) => JSON.stringify(c)).join('; ') ?? '';
  const action = d.action.type === 'startWorkflow' ? d.action : undefined;
  return [
    `schedule ${d.scheduleId}${d.state.paused ? ' (PAUSED)' : ''}`,
    `  spec: ${cal} ${d.spec.timezone ?? 'UTC'}`,
    `  policies: overlap ${d.policies.overlap}, catch-up window ${d.policies.catchupWindow} ms`,
    `  action: ${action ? `${action.workflowType} on ${action.taskQueue}` : d.action.type}`,
    `  next runs: ${
      d.info.nextActionTimes
        .slice(0, 3)
        .map((t) => t.toISOString())
        .join(', ') || '-'
    }`,
    `  runs so far: ${d.info.numActionsTaken} (missed by catch-up: ${d.info.numActionsMissedCatchupWindow}, skipped by overlap: ${d.info.numActionsSkippedOverlap})`,
    ...d.info.recentActions
      .slice(-5)
      .map((a) => `  recent: ${a.scheduledAt.toISOString()} → ${a.action.type === 'startWorkflow' ? a.action.workflow.workflowId : ''}`),
    ...(d.state.note ? [`  note: ${d.state.note}`] : []),
  ];
}
