// `npm run chaos` (not in CI): a benchmark on a private local stack (its own Postgres, Temporal dev
// server, scripted model server and one worker process per queue, in a temp dir), run once cleanly and
// once while faults are injected: kill -9 of the pau worker, of the pau worker's sandbox executors (the
// default placement `inline` runs a step's calls there), of the sandbox worker, the Temporal server and
// the Postgres postmaster; Postgres and then the model server down longer than the model turn's retry
// horizon (shortened here through the run config); the run terminated and then continued with
// `rerun --run`. It checks the results equal the clean run's and prints a table: faults injected /
// survived, duplicates, stuck rows, calls paid twice, processes that died by themselves (a worker that
// exits on its own is not restarted here: that is how a Postgres restart killing the pau worker showed).
// Exit 0 when every fault was survived with equal results, nothing stuck and no process died by itself.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { and, eq, sql } from 'drizzle-orm';
import type { DbHandle } from '../../db/client';
import { llmCalls } from '../../db/schema/llm';
import { episodes, judgments, runs, steps } from '../../db/schema/runs';
import type { BenchmarkConfig } from '../../domain/bench/types';
import { paidTwice } from '../../db/queries/ledger';
import { runProgress } from '../../db/queries/runs';
import { freePort, sleep } from '../../platform/process/processes';
import { startPostgres, stopPostgres } from '../../platform/stack/postgres';
import { startTemporal } from '../../platform/stack/temporal';
import { printTable } from '../../domain/report/table';
import { WAITING_FOR_DATABASE } from '../../domain/episode/outageWait';
import { chaosLog, chaosProcesses } from './chaosProcesses';
import { insertChaosMethods, openChaosRig, runChaosMain } from './chaosStack';

const METHODS = Number(process.env.PAU_CHAOS_METHODS ?? 12);
const OUTAGE_S = Number(process.env.PAU_CHAOS_OUTAGE_S ?? 45);
const log = chaosLog('chaos');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-chaos-'));
const procs = chaosProcesses(dir, log);
const { kill9, diedByThemselves } = procs;

/** Child processes of `pid` (all its threads' children), from /proc. */
function childPids(pid: number): number[] {
  const tasks = fs.readdirSync(`/proc/${pid}/task`, { withFileTypes: true });
  return tasks.flatMap((t) => {
    try {
      return fs.readFileSync(`/proc/${pid}/task/${t.name}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    } catch {
      return [];
    }
  });
}

/** The sandbox executors a worker process runs (python sandbox/executor.py, possibly inside bubblewrap), each with its descendants. */
function executorTrees(workerPid: number): number[][] {
  const tree = (pid: number): number[] => [pid, ...childPids(pid).flatMap(tree)];
  return childPids(workerPid)
    .filter((pid) => {
      try {
        return /executor\.py/.test(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
      } catch {
        return false;
      }
    })
    .map(tree);
}

function postmasterPid(dataDir: string): number {
  return Number(fs.readFileSync(path.join(fs.realpathSync(dataDir), 'postmaster.pid'), 'utf8').split('\n')[0]);
}

async function main(): Promise<number> {
  const ports = { pg: await freePort(), temporal: await freePort(), mock: await freePort() };
  const rig = await openChaosRig(dir, log, procs, { ports, mockLatencyMs: 100 });
  const { stack, dbh, client } = rig;
  const { pg, password, temporal, cli } = stack;
  const startMain = () => rig.startWorker('pau');
  const startSandbox = () => rig.startWorker('pau-sandbox');
  let mock = await rig.startMock();
  let main = await startMain();
  let sandbox = await startSandbox();

  try {
    await insertChaosMethods(dbh.db, 'chaos', 'test', METHODS);
    const { launchBenchmark, resumeBenchmark } = await import('../../scripts/client/benchStart');
    const config: BenchmarkConfig = {
      dataset: 'chaos',
      split: 'test',
      models: ['mock-steps', 'mock-oracle'],
      settings: ['interactive', 'in-context'],
      samples: 1,
      window: 8,
      // Not cacheable (temperature > 0; the scripted models ignore it): every run makes its own calls.
      params: { temperature: 0.5 },
      judgeModel: 'mock-oracle',
      // The model turn's own retries shortened to ~17 s (default ~3 min), so the Postgres and model server
      // outages below outlast them: only the episodes' outage wait keeps them alive.
      modelRetry: { maximumAttempts: 6, initialInterval: '1s', maximumInterval: '5s' },
      outageWaitSeconds: 3600,
    };
    const total = METHODS * 4;
    const stamp = Date.now().toString(36);

    log(`clean run: ${total} episodes`);
    const clean = `chaos-clean-${stamp}`;
    const started = Date.now();
    await (await launchBenchmark(client, dbh.db, clean, config)).handle.result();
    log(`clean run done in ${((Date.now() - started) / 1000).toFixed(0)} s`);

    const faulty = `chaos-faults-${stamp}`;
    let handle = (await launchBenchmark(client, dbh.db, faulty, config)).handle;
    const done = async () => (await runProgress(dbh.db, faulty))?.done ?? 0;
    const rows: { fault: string; at: string; survived: string; note: string }[] = [];
    /** Waits until `n` more episodes ended (the run makes progress again after a fault). */
    const progressed = async (from: number, n = 1, timeoutMs = 240_000) => {
      const end = Date.now() + timeoutMs;
      while (Date.now() < end) {
        if ((await done().catch(() => from)) >= Math.min(total, from + n)) return true;
        await sleep(500);
      }
      return false;
    };
    const fault = async (name: string, inject: () => Promise<string>) => {
      await progressed(await done(), 2, 120_000);
      const at = await done();
      log(`inject: ${name} (at ${at}/${total} episodes)`);
      const note = await inject();
      const ok = await progressed(at, 1);
      // A note saying NO: the fault could not be injected or its repair was not seen.
      rows.push({ fault: name, at: `${at}/${total}`, survived: ok && !/\bNO\b/.test(note) ? 'yes' : 'NO', note });
      log(`${name}: ${ok ? 'the run made progress again' : 'NO progress after the fault'}`);
    };

    await fault('kill -9 pau worker', async () => {
      await kill9(main);
      await sleep(2_000);
      main = await startMain();
      return 'restarted after 2 s';
    });
    await fault("kill -9 pau worker's sandbox executors", async () => {
      // Placement `inline`: a step's calls run on the pau worker's own pool. Its executors die mid-run; the
      // pool must start new ones, and the turns caught mid-batch retry without paying a model call twice
      // (checked below: model calls paid twice).
      const trees = executorTrees(main.pid!);
      if (trees.length === 0) return 'NO executor found under the pau worker (placement not inline?)';
      for (const pid of trees.flat().reverse()) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone (a spare that finished its call)
        }
      }
      const killedPids = new Set(trees.map((t) => t[0]));
      for (let i = 0; i < 60; i++) {
        const fresh = executorTrees(main.pid!).filter((t) => !killedPids.has(t[0]));
        if (fresh.length > 0) return `killed ${trees.length} executor(s) (${trees.flat().length} processes); the pool started ${fresh.length} new`;
        await sleep(500);
      }
      return `killed ${trees.length} executor(s); NO new executor within 30 s`;
    });
    await fault('kill -9 sandbox worker', async () => {
      await kill9(sandbox);
      await sleep(2_000);
      sandbox = await startSandbox();
      return 'restarted after 2 s';
    });
    await fault('kill -9 Temporal server', async () => {
      process.kill(Number(fs.readFileSync(temporal.pidFile, 'utf8').trim()), 'SIGKILL');
      await sleep(3_000);
      await startTemporal(temporal, cli);
      return 'restarted after 3 s (same SQLite file)';
    });
    await fault('kill -9 Postgres postmaster', async () => {
      process.kill(postmasterPid(pg.dataDir), 'SIGKILL');
      await sleep(3_000);
      await startPostgres(pg, password);
      return 'restarted after 3 s (crash recovery)';
    });
    await fault(`Postgres down ${OUTAGE_S} s`, async () => {
      // Longer than the model turn's own retries (~17 s here): turns in flight wait for the database.
      await stopPostgres(pg);
      let sawWaiting = false;
      const end = Date.now() + OUTAGE_S * 1000;
      while (Date.now() < end) {
        for await (const _ of client.workflow.list({ query: `PauRunId = '${faulty}' AND PauWaitingFor = '${WAITING_FOR_DATABASE}'` })) sawWaiting = true;
        await sleep(1_000);
      }
      await startPostgres(pg, password);
      return `turn retries ~17 s; ${sawWaiting ? 'episodes showed PauWaitingFor=postgres' : 'no episode was seen waiting for Postgres'}`;
    });
    await fault(`model server down ${OUTAGE_S} s`, async () => {
      await kill9(mock);
      let sawWaiting = false;
      const end = Date.now() + OUTAGE_S * 1000;
      while (Date.now() < end) {
        const p = await runProgress(dbh.db, faulty).catch(() => undefined);
        if (p && p.waiting.length > 0) sawWaiting = true;
        await sleep(1_000);
      }
      mock = await rig.startMock();
      return `turn retries ~17 s; ${sawWaiting ? 'the run showed WAITING for the model' : 'the run never showed WAITING'}`;
    });
    await fault('terminate the run, then rerun --run', async () => {
      await handle.terminate('chaos: terminate');
      const { reconcileRuns } = await import('../../scripts/ops/reconcile');
      const rec = await reconcileRuns(client, dbh.db, [faulty]);
      handle = (await resumeBenchmark(client, dbh.db, faulty)).handle;
      return `reconciled ${rec[0]?.episodes ?? 0} episode row(s) to cancelled; resumed`;
    });
    await handle.result();
    // Judge children are abandoned by a terminated episode and finish on their own: wait for them.
    const judged = async (runId: string) =>
      Number(
        (
          await dbh.db
            .select({ n: sql<number>`count(*)::int` })
            .from(judgments)
            .innerJoin(episodes, eq(episodes.id, judgments.episodeId))
            .where(and(eq(episodes.runId, runId), sql`${judgments.score} is not null`))
        )[0]?.n ?? 0,
      );
    const want = await judged(clean);
    for (let i = 0; i < 120 && (await judged(faulty)) < want; i++) await sleep(1_000);
    log('faulty run done; comparing with the clean run');

    const cmp = await compare(dbh, clean, faulty);
    const paid = await paidTwice(dbh.db, faulty);
    console.log('');
    printTable(
      ['fault', 'injected at', 'survived', 'note'],
      rows.map((r) => [r.fault, r.at, r.survived, r.note]),
    );
    console.log('');
    printTable(
      ['check', 'value'],
      [
        ['faults injected', rows.length],
        ['faults survived', rows.filter((r) => r.survived === 'yes').length],
        ['episodes compared', cmp.compared],
        ['episodes differing from the clean run', cmp.differing],
        ['compared columns', cmp.columns],
        ['duplicate rows (episode identities, step gaps/repeats)', cmp.duplicates],
        ['stuck rows (episodes not ended, run not finished)', cmp.stuck],
        ['model calls paid twice (extra sends, cost)', `${paid.calls} (${paid.extraSends}, $${paid.costUsd.toFixed(4)})`],
        ['sent and never answered', paid.unanswered],
        ['processes that died by themselves', diedByThemselves.length],
      ],
    );
    for (const d of [...cmp.examples, ...diedByThemselves.map((d) => `died by itself: ${d}`)]) console.log(`  ${d}`);
    const ok = rows.every((r) => r.survived === 'yes') && cmp.differing === 0 && cmp.duplicates === 0 && cmp.stuck === 0 && diedByThemselves.length === 0;
    console.log(ok ? '\nchaos: every fault survived; results equal the clean run' : '\nchaos: FAILED (see above)');
    return ok ? 0 : 1;
  } finally {
    await rig.close();
  }
}

/** Episode-by-episode equality with the clean run on the columns a run produces, plus duplicates and stuck rows. */
async function compare(dbh: DbHandle, clean: string, faulty: string) {
  const d = dbh.db;
  const load = async (runId: string) => {
    const eps = await d
      .select({
        key: sql<string>`${episodes.methodId} || '|' || ${episodes.model} || '|' || ${episodes.setting} || '|' || ${episodes.sample}`,
        status: episodes.status,
        endReason: episodes.endReason,
        finalDescription: episodes.finalDescription,
        callsMade: episodes.callsMade,
        tokensIn: episodes.tokensIn,
        tokensOut: episodes.tokensOut,
        steps: sql<number>`(select count(*)::int from ${steps} s where s.episode_id = ${episodes.id})`,
        kinds: sql<string>`(select string_agg(s.kind, ',' order by s.idx) from ${steps} s where s.episode_id = ${episodes.id})`,
        // What the agent saw (the text and category; the result's timing differs from run to run).
        observations: sql<string>`(select md5(coalesce(string_agg(coalesce(s.observation->>'text', '') || '#' || coalesce(s.observation->>'category', ''), '|' order by s.idx), '')) from ${steps} s where s.episode_id = ${episodes.id})`,
        score: sql<number | null>`(select j.score from ${judgments} j where j.episode_id = ${episodes.id} limit 1)`,
        codeMatch: sql<number | null>`(select j.code_match from ${judgments} j where j.episode_id = ${episodes.id} limit 1)`,
      })
      .from(episodes)
      .where(eq(episodes.runId, runId));
    return new Map(eps.map((e) => [e.key, e]));
  };
  const a = await load(clean);
  const b = await load(faulty);
  const columns = [
    'status',
    'endReason',
    'finalDescription',
    'callsMade',
    'tokensIn',
    'tokensOut',
    'steps',
    'kinds',
    'observations',
    'score',
    'codeMatch',
  ] as const;
  let differing = 0;
  const examples: string[] = [];
  for (const [key, ea] of a) {
    const eb = b.get(key);
    const diff = eb ? columns.filter((c) => JSON.stringify(ea[c]) !== JSON.stringify(eb[c])) : ['missing'];
    if (diff.length > 0) {
      differing++;
      if (examples.length < 5) examples.push(`differs: ${key}: ${diff.join(', ')}`);
    }
  }
  differing += [...b.keys()].filter((k) => !a.has(k)).length;
  const [dup] = await d
    .select({
      gaps: sql<number>`(select count(*)::int from (select s.episode_id, count(*) n, max(s.idx) m from ${steps} s join ${episodes} e on e.id = s.episode_id where e.run_id = ${faulty} group by s.episode_id) t where t.n <> t.m + 1)`,
      ids: sql<number>`(select count(*)::int from (select 1 from ${episodes} where ${episodes.runId} = ${faulty} group by ${episodes.methodId}, ${episodes.model}, ${episodes.setting}, ${episodes.sample} having count(*) > 1) t)`,
    })
    .from(runs)
    .limit(1);
  const [stuckEps] = await d
    .select({ n: sql<number>`count(*)::int` })
    .from(episodes)
    .where(and(eq(episodes.runId, faulty), sql`${episodes.status} not in ('completed', 'failed')`));
  const [run] = await d.select({ status: runs.status, error: runs.error }).from(runs).where(eq(runs.id, faulty));
  const byStatus = await d
    .select({ status: episodes.status, n: sql<number>`count(*)::int` })
    .from(episodes)
    .where(eq(episodes.runId, faulty))
    .groupBy(episodes.status);
  const unanswered = await d
    .select({ callKey: llmCalls.callKey, sends: llmCalls.sends, resent: llmCalls.resent })
    .from(llmCalls)
    .where(sql`${llmCalls.state} = 'sent'`);
  examples.push(`run ${faulty}: ${run?.status}${run?.error ? ` (${run.error})` : ''}; episodes ${byStatus.map((b) => `${b.status} ${b.n}`).join(', ')}`);
  for (const u of unanswered.slice(0, 5)) examples.push(`sent, never answered: ${u.callKey} (sends ${u.sends}, resent ${u.resent})`);
  return {
    compared: a.size,
    differing,
    examples,
    columns: columns.length,
    duplicates: Number(dup?.gaps ?? 0) + Number(dup?.ids ?? 0),
    stuck: Number(stuckEps?.n ?? 0) + (run?.status === 'completed' ? 0 : 1),
  };
}

runChaosMain('chaos', main, procs);
