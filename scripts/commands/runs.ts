// `pau runs list [--failed]` and `pau runs show RUN_ID`: runs and their episodes, with UI links.
import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { workflowUiLink } from '../../config/services';
import { connect } from '../../db/client';
import { runs } from '../../db/schema/index';
import { defineOptions, parseCommandArgs, UsageError } from '../lib/args';
import { printTable } from '../../domain/report/table';
import { listRuns, runEpisodes } from '../ops/runsQuery';
import { printEpisode } from '../ops/episodeTranscript';

export const usage = 'pau runs list [--failed] [--limit N]\n       pau runs show RUN_ID [--all]\n       pau runs show RUN_ID --episode EPISODE_ID [--full]';

export async function run(argv: string[]): Promise<number> {
  const [action, ...rest] = argv;
  const h = connect(undefined, 2);
  try {
    if (action === 'list') {
      const { values, positionals } = parseCommandArgs(
        rest,
        defineOptions({ failed: z.boolean().optional(), limit: z.coerce.number().int().min(1).optional() }),
      );
      if (positionals.length > 0) throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`);
      const rows = await listRuns(h.db, { failedOnly: values.failed ?? false, limit: values.limit ?? 50 });
      if (rows.length === 0) {
        console.log(values.failed ? 'no run has failures' : 'no runs yet');
        return 0;
      }
      printTable(
        ['run', 'kind', 'status', 'episodes', 'completed', 'failed', 'running', 'created'],
        rows.map((r) => [r.id, r.kind, r.status, r.episodes, r.completed, r.failed, r.running, r.createdAt.toISOString().slice(0, 19).replace('T', ' ')]),
      );
      return 0;
    }
    if (action === 'show') {
      const { values, positionals } = parseCommandArgs(
        rest,
        defineOptions({ all: z.boolean().optional(), episode: z.string().min(1).optional(), full: z.boolean().optional() }),
      );
      const [runId, ...more] = positionals;
      if (!runId || more.length > 0) throw new UsageError('show takes one RUN_ID');
      if (values.episode) return await printEpisode(h.db, runId, values.episode, values.full ?? false);
      const [run] = await h.db.select().from(runs).where(eq(runs.id, runId)).limit(1);
      if (!run) {
        console.error(`runs: no run ${runId}`);
        return 1;
      }
      console.log(`run ${run.id} (${run.kind}): ${run.status}${run.error ? ` — ${run.error}` : ''}`);
      if (run.workflowId) console.log(`  workflow ${run.workflowId}  ${workflowUiLink(run.workflowId)}`);
      const eps = await runEpisodes(h.db, runId);
      const byStatus = new Map<string, number>();
      for (const e of eps) byStatus.set(e.status, (byStatus.get(e.status) ?? 0) + 1);
      printTable(
        ['status', 'episodes'],
        [...byStatus.entries()].sort().map(([s, n]) => [s, n]),
      );
      const shown = values.all ? eps : eps.filter((e) => e.status !== 'completed');
      if (shown.length > 0) {
        console.log(values.all ? '\nepisodes:' : '\nepisodes not completed (--all lists every one):');
        for (const e of shown) {
          console.log(`  ${e.status.padEnd(9)} ${e.methodId} · ${e.model} · ${e.setting} · ${e.sample}${e.endReason ? `  (${e.endReason})` : ''}`);
          if (e.error) console.log(`            error: ${e.error.split('\n')[0]?.slice(0, 200)}`);
          if (e.workflowId) console.log(`            ${workflowUiLink(e.workflowId)}`);
        }
      }
      if ((byStatus.get('failed') ?? 0) > 0) console.log(`\nrerun the failed ones: npm run pau -- rerun --run ${runId} --failed`);
      return 0;
    }
    throw new UsageError(`unknown action ${JSON.stringify(action ?? '')}`);
  } finally {
    await h.close();
  }
}
