import type { Client } from '@temporalio/client';
import type { BenchmarkConfig } from '../../domain/bench/types';
import { connectClient } from '../../config/temporal';
import { parseCommandArgs, UsageError } from '../lib/args';
import { backfillOptions, nightlyOptions } from '../options/schedule';
import { judgeFromArgs, selectionConfig } from '../lib/benchArgs';
import { judgeFields } from '../client/judgeChoice';
import { printTable } from '../../domain/report/table';
import { describeLines, listSchedules, upsertNightly, type OverlapPolicy } from '../ops/schedules';
import { workflowPollers } from '../ops/queuePollers';
import { isNotFound, NotFoundError } from '../lib/notFound';
import { TASK_QUEUES } from '../../domain/temporal/queues';

function oneId(positionals: string[], action: string): string {
  const [id, ...more] = positionals;
  if (!id || more.length > 0) throw new UsageError(`${action} takes one schedule ID`);
  return id;
}

export async function run(argv: string[]): Promise<number> {
  const [action, ...rest] = argv;
  const client = await connectClient();
  try {
    return await scheduleAction(client, action, rest);
  } catch (err) {
    // An id that names no schedule: the one line every verb gives (scripts/lib/notFound.ts), not a stack trace.
    const id = rest.find((a) => !a.startsWith('-'));
    if (isNotFound(err)) throw new NotFoundError(`no schedule ${JSON.stringify(id ?? '')} (npm run pau -- schedule list shows them)`);
    throw err;
  } finally {
    await client.connection.close();
  }
}

async function scheduleAction(client: Client, action: string | undefined, rest: string[]): Promise<number> {
  switch (action) {
    case 'nightly': {
      const { values: v, positionals } = parseCommandArgs(rest, nightlyOptions);
      if (positionals.length > 0) throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`);
      const base = selectionConfig(v, v.dataset);
      // Same rule as bench run: a real-model night is never judged silently by the scripted mock.
      const judge = await judgeFromArgs(v);
      const config: BenchmarkConfig = { ...base, ...judgeFields(judge) };
      const scheduleId = v.id ?? `nightly-${v.dataset}`;
      const state = await upsertNightly(client, {
        scheduleId,
        at: v.at,
        timezone: v.tz,
        config,
        overlap: v.overlap.toUpperCase() as OverlapPolicy,
        catchupWindow: v.catchup.replace(/\s+/g, ''),
        ...(v.paused ? { paused: true } : {}),
      });
      console.log(`schedule ${scheduleId}: ${state}`);
      console.log(judge.note);
      console.log(describeLines(await client.schedule.getHandle(scheduleId).describe()).join('\n'));
      return 0;
    }
    case 'list': {
      const rows = await listSchedules(client);
      if (rows.length === 0) console.log('no schedules');
      else
        printTable(
          ['id', 'state', 'next run', 'starts'],
          rows.map((r) => [r.id, r.paused ? 'paused' : 'active', r.next, r.summary]),
        );
      return 0;
    }
    case 'describe':
      console.log(describeLines(await client.schedule.getHandle(oneId(rest, action)).describe()).join('\n'));
      return 0;
    case 'pause':
      await client.schedule.getHandle(oneId(rest, action)).pause('paused with `pau schedule pause`');
      console.log(`schedule ${rest[0]}: paused`);
      return 0;
    case 'unpause':
      await client.schedule.getHandle(oneId(rest, action)).unpause('unpaused with `pau schedule unpause`');
      console.log(`schedule ${rest[0]}: active`);
      return 0;
    case 'trigger': {
      const handle = client.schedule.getHandle(oneId(rest, action));
      const d = await handle.describe();
      await handle.trigger();
      // A trigger with no worker on the action's queue starts a workflow that waits: say so, and exit 1.
      const queue = d.action.type === 'startWorkflow' ? d.action.taskQueue : TASK_QUEUES.main;
      if ((await workflowPollers(client, queue)).length === 0) {
        console.error(
          `schedule ${rest[0]}: triggered, but no worker polls task queue ${queue}: the run waits until one does (start the workers: npm run pau -- workers, or npm start)`,
        );
        return 1;
      }
      console.log(`schedule ${rest[0]}: triggered (a run starts now; overlap policy applies)`);
      return 0;
    }
    case 'delete':
      await client.schedule.getHandle(oneId(rest, action)).delete();
      console.log(`schedule ${rest[0]}: deleted (runs it started are kept)`);
      return 0;
    case 'backfill': {
      const { values, positionals } = parseCommandArgs(rest, backfillOptions);
      const id = oneId(positionals, action);
      const start = new Date(values.from);
      const end = new Date(values.to);
      if (end <= start) throw new UsageError('--to must be after --from');
      await client.schedule.getHandle(id).backfill({ start, end, overlap: 'ALLOW_ALL' });
      console.log(`schedule ${id}: backfilling the runs due between ${start.toISOString()} and ${end.toISOString()}`);
      return 0;
    }
    default:
      throw new UsageError(`unknown action ${JSON.stringify(action ?? '')}`);
  }
}
