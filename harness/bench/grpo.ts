// npm run bench:grpo [-- RUN_ID ...]   (default: the latest GRPO run)
// Where a GRPO run's time goes, per epoch, from what the run stored (needs the stack that ran it: Postgres):
// rollouts/min, critic calls/min, update tokens/s, and the epoch's wall time split into
//   model     the union of the intervals in which a model call of the epoch's rollouts was in flight (agent turns,
//             critic, judge and coder; ledger start + latency; concurrent calls count once; cached calls 0),
//   sandbox   the summed execution time of the rollouts' method calls (the executor's own ms; judge runs excluded),
//   update    the trainer jobs (grpo-update incl. process start, reference/old log-probs, export to GGUF),
//   orchestration  the rest of the rollout and critic phases (Temporal, Postgres, model-server start, queues).
// The validation benchmark's time is printed beside, not in the shares. Also writes reports/bench-grpo.json.
import fs from 'node:fs';
import path from 'node:path';
import { desc, eq, like, or } from 'drizzle-orm';
import { PROJECT_ROOT } from '../../config/env';
import { connect } from '../../db/client';
import { llmCalls } from '../../db/schema/llm';
import { episodes, runs, steps } from '../../db/schema/runs';
import { loadGrpoRun } from '../../db/queries/grpoReportData';
import { printTable } from '../../domain/report/table';

interface Interval {
  start: number;
  end: number;
}

/** Total length of the union of intervals. */
function unionMs(xs: Interval[]): number {
  const s = [...xs].sort((a, b) => a.start - b.start);
  let total = 0;
  let cur: Interval | undefined;
  for (const x of s) {
    if (!cur || x.start > cur.end) {
      if (cur) total += cur.end - cur.start;
      cur = { ...x };
    } else cur.end = Math.max(cur.end, x.end);
  }
  if (cur) total += cur.end - cur.start;
  return total;
}

const pct = (x: number, of: number) => (of > 0 ? `${Math.round((100 * x) / of)}%` : '-');
const f1 = (x: number | null | undefined) => (x === null || x === undefined || !Number.isFinite(x) ? '-' : x.toFixed(1));

async function main(): Promise<number> {
  const h = connect(undefined, 2);
  try {
    let ids = process.argv.slice(2).filter((a) => !a.startsWith('-'));
    if (ids.length === 0) {
      const [latest] = await h.db.select({ id: runs.id }).from(runs).where(eq(runs.kind, 'grpo')).orderBy(desc(runs.createdAt)).limit(1);
      if (!latest) {
        console.error('bench:grpo: no GRPO run in this database (start one with npm run pau -- grpo train ...)');
        return 1;
      }
      ids = [latest.id];
    }
    const out: Record<string, unknown>[] = [];
    for (const runId of ids) {
      const run = await loadGrpoRun(h.db, runId);
      if (!run) {
        console.error(`bench:grpo: ${runId} is not a GRPO run`);
        return 1;
      }
      const rows: (string | number)[][] = [];
      for (const e of run.epochs) {
        const epIds = (await h.db.select({ id: episodes.id, sample: episodes.sample, model: episodes.model }).from(episodes).where(eq(episodes.runId, runId)))
          .filter((x) => Math.floor(x.sample / 1000) === e.epoch && x.model === e.policyModel)
          .map((x) => x.id);
        const calls = epIds.length
          ? await h.db
              .select({ created: llmCalls.createdAt, latency: llmCalls.latencyMs })
              .from(llmCalls)
              .where(or(...epIds.map((id) => like(llmCalls.callKey, `${id}#%`))))
          : [];
        const modelMs = unionMs(calls.map((c) => ({ start: c.created.getTime(), end: c.created.getTime() + c.latency })));
        let sandboxMs = 0;
        for (const id of epIds) {
          for (const s of await h.db.select({ obs: steps.observation }).from(steps).where(eq(steps.episodeId, id))) {
            const ms = (s.obs as { result?: { ms?: number } } | null)?.result?.ms;
            if (typeof ms === 'number') sandboxMs += ms;
          }
        }
        const t = e.timing;
        const updateMs = t.updateMs + t.exportMs;
        const rc = t.rolloutsMs + t.criticMs;
        const orchestrationMs = Math.max(0, rc - modelMs - sandboxMs);
        const wall = rc + updateMs;
        const figures = {
          runId,
          epoch: e.epoch + 1,
          rollouts: e.rollouts,
          rolloutsPerMin: t.rolloutsMs > 0 ? (e.rollouts * 60_000) / t.rolloutsMs : null,
          criticCallsPerMin: t.criticMs > 0 ? (e.ratedSteps * 60_000) / t.criticMs : null,
          updateTokensPerS: e.update.tokensPerS,
          wallS: wall / 1000,
          modelS: modelMs / 1000,
          sandboxS: sandboxMs / 1000,
          updateS: updateMs / 1000,
          orchestrationS: orchestrationMs / 1000,
          evalS: t.evalMs / 1000,
          modelCalls: calls.length,
        };
        out.push(figures);
        rows.push([
          figures.epoch,
          e.rollouts,
          f1(figures.rolloutsPerMin),
          f1(figures.criticCallsPerMin),
          f1(figures.updateTokensPerS),
          Math.round(figures.wallS),
          pct(modelMs, wall),
          pct(sandboxMs, wall),
          pct(updateMs, wall),
          pct(orchestrationMs, wall),
          Math.round(figures.evalS),
        ]);
      }
      console.log(`\n${runId} (${run.status}, reward ${run.config.reward}, ${run.config.base}; ${run.epochs.length}/${run.config.epochs} epochs)`);
      printTable(
        ['epoch', 'rollouts', 'rollouts/min', 'critic calls/min', 'update tok/s', 'wall s', 'model', 'sandbox', 'update', 'orchestration', 'eval s'],
        rows,
      );
    }
    const file = path.join(PROJECT_ROOT, 'reports', 'bench-grpo.json');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
    console.log(`\nwrote ${path.relative(PROJECT_ROOT, file)}`);
    return 0;
  } finally {
    await h.close();
  }
}

process.exitCode = await main();
