import type { BenchmarkConfig } from '../../domain/bench/types';
import { connectClient } from '../../config/temporal';
import { parseCommandArgs, UsageError } from '../lib/args';
import { backfillOptions, nightlyOptions } from '../options/schedule';
import { judgeFromArgs, selectionConfig } from '../lib/benchArgs';
import { judgeFields } from '../client/judgeChoice';
import { printTable } from '../../domain/report/table';
import { describeLines, listSchedules, upsertNightly, type OverlapPolicy } from '../ops/schedules';

function oneId(positionals: string[], action: string): string {
  const [id, ...more] = positionals;
  if (!id || more.length > 0) throw new UsageError(`${action} takes one schedule ID`);
  return id;
}

export async function run(argv: string[]): Promise<number> {
  const [action, ...rest] = argv;
  const client = await connectClient();
  try {
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
      case 'trigger':
        await client.schedule.getHandle(oneId(rest, action)).trigger();
        console.log(`schedule ${rest[0]}: triggered (a run starts now; overlap policy applies)`);
        return 0;
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
  } finally {
    await client.connection.close();
  }
}
