// `npm run chaos:grpo` (not in CI; ~30 min on 2 shared cores): a real 2-epoch GRPO run of SmolLM2-135M
// (policy AND critic, so the critic has a real llama.cpp server to kill; scripted random judge) on a private
// stack (its own Postgres, Temporal and state dir; ports from PAU_PG_PORT / PAU_TEMPORAL_PORT /
// PAU_MOCK_LLM_PORT / PAU_MODEL_PORT_BASE, or free ones) with one worker process per queue, while faults are
// injected:
//   1. kill -9 of the pau (main) worker during epoch 1's rollouts, restarted after 2 s;
//   2. kill -9 of the critic's llama.cpp server while a critic call is in flight (nothing restarts it but
//      the chat path's own `ensureLocalServer` on the call's retry);
//   3. kill -9 of the pau-gpu worker during epoch 1's update (mid optimizer step): its trainer must die with
//      it, and the retry on a restarted worker resume from the job's saves;
//   4. epoch 2's update made to fail for good (epoch 1's checkpoint loses its DONE marker: the trainer
//      refuses it as init_adapter, non-retryable), repaired, then `pau rerun grpo/<run>`.
// Then checks from Postgres: one checkpoint row per epoch with parent = the previous one, every rollout
// completed once, no step gaps, model calls paid twice, the run completed; prints a table per fault (when,
// what happened, time lost). Exit 0 when all hold.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { and, asc, eq, like, sql } from 'drizzle-orm';
import { PROJECT_ROOT } from '../../config/env';
import { llmCalls } from '../../db/schema/llm';
import { episodes, runs, steps } from '../../db/schema/runs';
import { checkpoints } from '../../db/schema/training';
import { paidTwice } from '../../db/queries/ledger';
import { freePort, runningNotZombie, runningPid, sleep } from '../../platform/process/processes';
import { installModel } from '../../platform/models/local/install';
import { ensureRuntime } from '../../platform/models/local/runtime';
import { serverFiles } from '../../platform/models/local/server';
import { type GrpoConfig, grpoJobId } from '../../domain/training/grpo';
import { printTable } from '../../domain/report/table';
import { startGrpo } from '../../scripts/client/starters';
import { chaosLog, chaosProcesses } from './chaosProcesses';
import { insertChaosMethods, openChaosRig, runChaosMain } from './chaosStack';

const log = chaosLog('grpo-chaos');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-grpo-chaos-'));
// workers compile their workflow bundle at start: minutes on a loaded 2-core machine
const procs = chaosProcesses(dir, log, 600_000);
const { kill9, diedByThemselves } = procs;
const MODEL = 'local/smollm2-135m';
const portOf = async (name: string) => Number(process.env[name] ?? 0) || (await freePort());

interface Row {
  fault: string;
  at: string;
  happened: string;
  lostS: string;
}

/** Polls `check` every `everyMs` until it returns a truthy value; throws after `timeoutMs`. */
async function waitFor<T>(what: string, check: () => Promise<T | undefined | null | false>, timeoutMs = 1_800_000, everyMs = 250): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await check().catch(() => undefined);
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** Pids of the trainer processes whose parent is `pid` (the gpu worker). */
function trainerChildren(pid: number): number[] {
  const out: number[] = [];
  for (const p of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid && fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('pau_trainer')) out.push(Number(p));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

async function main(): Promise<number> {
  const ports = { pg: await portOf('PAU_PG_PORT'), temporal: await portOf('PAU_TEMPORAL_PORT'), mock: await portOf('PAU_MOCK_LLM_PORT') };
  const modelPortBase = await portOf('PAU_MODEL_PORT_BASE');
  // Provisioned here, as `stack up` does: the workers' model turns only start a server from a ready install.
  await installModel(MODEL.replace(/^local\//, ''), { log });
  await ensureRuntime(log);
  const rig = await openChaosRig(dir, log, procs, {
    ports,
    extraEnv: { PAU_MODEL_PORT_BASE: String(modelPortBase), PAU_TRAINER_THREADS: '1' },
    mockLatencyMs: 10,
    note: `, model ports from ${modelPortBase}`,
    // model servers are started detached by the workers: stop the ones in this state dir
    cleanup: () => {
      for (const f of fs.existsSync(path.join(dir, 'models')) ? fs.readdirSync(path.join(dir, 'models')) : []) {
        const pid = f.endsWith('.pid') ? runningPid(path.join(dir, 'models', f)) : undefined;
        if (pid !== undefined) process.kill(pid, 'SIGKILL');
      }
    },
  });
  const { env, dbh, client } = rig;
  const startMain = () => rig.startWorker('pau');
  const startGpu = () => rig.startWorker('pau-gpu');
  const d = dbh.db;
  const rows: Row[] = [];
  const problems: string[] = [];
  const runId = `grpo-chaos-${Date.now().toString(36)}`;
  const started = Date.now();
  const at = () => `${((Date.now() - started) / 1000).toFixed(0)} s`;
  let main: Awaited<ReturnType<typeof startMain>>;
  let gpu: Awaited<ReturnType<typeof startGpu>>;
  try {
    await rig.startMock();
    [main, , gpu] = await Promise.all([startMain(), rig.startWorker('pau-sandbox'), startGpu()]);
    await insertChaosMethods(d, 'grpo-chaos', 'train', 1);
    const config: GrpoConfig = {
      base: MODEL,
      critic: MODEL,
      judgeModel: 'mock-random',
      dataset: 'grpo-chaos',
      split: 'train',
      methodsPerEpoch: 1,
      group: 2,
      epochs: 2,
      budgets: { maxCalls: 2, maxTurns: 3 },
      temperature: 1,
      maxTokens: 48,
      reward: 'mix',
      codeMatchWeight: 1,
      lr: 0.002,
      maxLength: 512,
      seed: 1,
      evalEvery: 0,
      evalSplit: 'validation',
    };
    const handle = await startGrpo(client, runId, config);
    log(`started ${handle.workflowId}`);
    const runCalls = async () =>
      Number(
        (
          await d
            .select({ n: sql<number>`count(*)::int` })
            .from(llmCalls)
            .where(like(llmCalls.callKey, `${runId}/%`))
        )[0]?.n ?? 0,
      );
    const runEpisodes = () => d.select().from(episodes).where(eq(episodes.runId, runId));
    const stepRows = async () =>
      Number(
        (
          await d.select({ n: sql<number>`count(*)::int` }).from(steps).innerJoin(episodes, eq(episodes.id, steps.episodeId)).where(eq(episodes.runId, runId))
        )[0]?.n ?? 0,
      );

    // 1. the main worker during epoch 1's rollouts
    await waitFor('a rollout step', async () => (await stepRows()) >= 1);
    {
      const before = await stepRows();
      const t = Date.now();
      const when = at();
      await kill9(main);
      await sleep(2_000);
      main = await startMain();
      await waitFor('rollout progress after the kill', async () => (await stepRows()) > before || (await runEpisodes()).every((e) => e.status === 'completed'));
      const lost = (Date.now() - t) / 1000;
      rows.push({
        fault: 'kill -9 pau worker',
        at: `${when}, epoch 1 rollouts (${before} steps stored)`,
        happened: 'restarted after 2 s; rollouts continued',
        lostS: `${lost.toFixed(0)} s to the next step`,
      });
      log(`fault 1 done: next step ${lost.toFixed(0)} s after the kill`);
    }

    // 2. the critic's model server (local/smollm2-135m, which is also epoch 1's policy) while one of its calls
    // is in flight: a critic call if one comes (rollouts that made no method call leave the critic nothing to
    // rate), else a policy call of epoch 1
    const inFlight = () =>
      d
        .select({ callKey: llmCalls.callKey })
        .from(llmCalls)
        .where(and(like(llmCalls.callKey, `${runId}/%`), eq(llmCalls.model, MODEL), eq(llmCalls.state, 'sent')))
        .then((r) => r[0]?.callKey ?? null);
    const pidFile = serverFiles(MODEL.replace(/[^A-Za-z0-9._-]+/g, '_'), dir).pidFile;
    {
      const key = await waitFor(`a call to ${MODEL} in flight`, inFlight, 1_800_000, 100);
      const pid = runningPid(pidFile);
      const when = at();
      const t = Date.now();
      if (pid === undefined) throw new Error(`no running server in ${pidFile}`);
      process.kill(pid, 'SIGKILL');
      log(`fault 2: killed ${MODEL} server pid ${pid} during ${key}`);
      await waitFor('that call to complete', async () => {
        const [r] = await d.select({ state: llmCalls.state }).from(llmCalls).where(eq(llmCalls.callKey, key));
        return r?.state === 'completed';
      });
      const lost = (Date.now() - t) / 1000;
      const newPid = runningPid(pidFile);
      rows.push({
        fault: `kill -9 ${MODEL} server (critic; epoch 1 policy)`,
        at: `${when}, ${key.includes('#critic#') ? 'critic' : 'epoch 1 rollouts'} (${key.split('/').pop()} in flight)`,
        happened:
          newPid && newPid !== pid
            ? `restarted by the call's retry (ensureLocalServer): pid ${pid} -> ${newPid}`
            : `NOT restarted (pid file: ${newPid ?? 'none'})`,
        lostS: `${lost.toFixed(0)} s until that call completed`,
      });
      if (!newPid || newPid === pid) problems.push('the killed model server was not restarted');
      log(`fault 2 done: ${lost.toFixed(0)} s`);
    }
    const criticCalls = () =>
      d
        .select({ n: sql<number>`count(*)::int` })
        .from(llmCalls)
        .where(like(llmCalls.callKey, `${runId}/%#critic#%`));

    // 3. the gpu worker during epoch 1's update, mid optimizer step (precompute done)
    const job1 = path.join(dir, 'training', grpoJobId(runId, 0));
    {
      await waitFor('epoch 1 update running', async () => trainerChildren(gpu.pid!).length > 0 && fs.existsSync(path.join(job1, 'spec.json')), 3_600_000, 250);
      // mid optimizer step if the log-probs get precomputed within 3 min, else during the precompute; a job whose
      // group had nothing to learn (equal rewards: docs/training.md) saves the fresh adapter and ends at once, with
      // no step to kill, and the run goes on without waiting for this script: say so instead of killing a worker
      // that holds nothing (which left fault 4 waiting an hour for a failure of a run already completed).
      await waitFor(
        'log-probs precomputed or the job ended',
        async () => fs.existsSync(path.join(job1, 'precomputed.pt')) || trainerChildren(gpu.pid!).length === 0,
        180_000,
        250,
      ).catch(() => undefined);
      if (!fs.existsSync(path.join(job1, 'precomputed.pt')) && trainerChildren(gpu.pid!).length === 0) {
        throw new Error(
          "epoch 1's update ended before its first optimizer step (the group's rewards were equal, so there was nothing to learn and no step to kill): faults 3 and 4 cannot be injected in this run; run it again (SmolLM2's samples differ from run to run)",
        );
      }
      const phase = fs.existsSync(path.join(job1, 'precomputed.pt')) ? 'log-probs precomputed, step 1 running' : 'computing log-probs';
      const trainers = trainerChildren(gpu.pid!);
      const when = at();
      const t = Date.now();
      await kill9(gpu);
      let orphanS = -1;
      for (let i = 0; i < 100; i++) {
        if (trainers.every((p) => !runningNotZombie(p))) {
          orphanS = (Date.now() - t) / 1000;
          break;
        }
        await sleep(100);
      }
      if (orphanS < 0) problems.push(`trainer(s) ${trainers.join(',')} outlived the gpu worker by 10 s`);
      await sleep(2_000);
      gpu = await startGpu();
      await waitFor(
        'epoch 1 checkpoint row',
        async () => (await d.select().from(checkpoints).where(eq(checkpoints.runId, runId))).length >= 1,
        3_600_000,
        1_000,
      );
      const lost = (Date.now() - t) / 1000;
      rows.push({
        fault: 'kill -9 pau-gpu worker',
        at: `${when}, epoch 1 update (${phase})`,
        happened: `trainer pid ${trainers.join(',')} ${orphanS >= 0 ? `exited ${orphanS.toFixed(1)} s after the worker` : 'SURVIVED'}; restarted after 2 s; retry after the heartbeat timeout resumed`,
        lostS: `${lost.toFixed(0)} s from kill to checkpoint (incl. heartbeat timeout and the redone step)`,
      });
      log(`fault 3 done: ${lost.toFixed(0)} s`);
    }

    // 4. epoch 2's update fails for good, is repaired and rerun
    {
      const [ck1] = await d.select().from(checkpoints).where(eq(checkpoints.runId, runId));
      const done = path.join(ck1!.path, 'DONE');
      await waitFor('epoch 2 rollouts', async () => (await runEpisodes()).some((e) => e.sample >= 1000));
      const [now] = await d.select({ status: runs.status }).from(runs).where(eq(runs.id, runId));
      if (now?.status !== 'running')
        throw new Error(`the run is ${now?.status} before fault 4 could be injected: epoch 2's update was not ahead of this script`);
      fs.renameSync(done, `${done}.chaos-hidden`);
      const when = at();
      const t = Date.now();
      log(`fault 4: hid ${done}; waiting for the run to fail`);
      const [failed] = await waitFor(
        'the run to fail',
        async () => {
          const r = await d.select({ status: runs.status, error: runs.error }).from(runs).where(eq(runs.id, runId));
          return r[0]?.status === 'failed' || r[0]?.status === 'completed' ? r : null;
        },
        3_600_000,
        1_000,
      );
      if (failed?.status === 'completed') throw new Error("the run completed although epoch 1's checkpoint had no DONE: epoch 2's update did not read it");
      fs.renameSync(`${done}.chaos-hidden`, done);
      const callsBefore = await runCalls();
      const rerunStarted = Date.now();
      // rerun's own output; execFileSync blocks this script's event loop, which is fine here
      const out = execFileSync(process.execPath, ['--import', 'tsx', path.join(PROJECT_ROOT, 'scripts/pau.ts'), 'rerun', handle.workflowId], {
        cwd: PROJECT_ROOT,
        env,
        encoding: 'utf8',
      });
      log(`rerun: ${out.trim().replace(/\n/g, ' | ')}`);
      await waitFor(
        'the run to complete after the rerun',
        async () => {
          const r = await d.select({ status: runs.status }).from(runs).where(eq(runs.id, runId));
          return r[0]?.status === 'completed';
        },
        3_600_000,
        1_000,
      );
      const callsAfter = await runCalls();
      rows.push({
        fault: 'epoch 2 update fails (init adapter without DONE), repaired, `pau rerun`',
        at: `${when}, epoch 2 rollouts`,
        happened: `run failed (${(failed?.error ?? '').slice(0, 90)}); rerun reset to before the update: ${callsAfter - callsBefore} new model calls`,
        lostS: `${((rerunStarted - t) / 1000).toFixed(0)} s to fail; ${((Date.now() - rerunStarted) / 1000).toFixed(0)} s from rerun to completion`,
      });
      if (callsAfter !== callsBefore) problems.push(`the rerun made ${callsAfter - callsBefore} new model calls`);
    }

    // Checks from Postgres
    const ckpts = await d.select().from(checkpoints).where(eq(checkpoints.runId, runId)).orderBy(asc(checkpoints.epoch));
    const lineage = ckpts.map((c) => `${c.id} (epoch ${c.epoch}, parent ${c.parentId ?? 'none'})`);
    if (ckpts.length !== 2 || ckpts[0]!.parentId !== null || ckpts[1]!.parentId !== ckpts[0]!.id) problems.push(`lineage: ${lineage.join('; ')}`);
    const eps = await runEpisodes();
    const identities = new Set(eps.map((e) => `${e.methodId}|${e.model}|${e.sample}`)).size;
    if (eps.length !== 4 || identities !== 4 || eps.some((e) => e.status !== 'completed'))
      problems.push(`rollouts: ${eps.map((e) => `${e.sample} ${e.status}`).join(', ')}`);
    const gaps = (
      await d.execute<{ n: number }>(
        sql`select count(*)::int as n from (select s.episode_id, count(*) n, max(s.idx) m from ${steps} s join ${episodes} e on e.id = s.episode_id where e.run_id = ${runId} group by s.episode_id) t where t.n <> t.m + 1`,
      )
    ).rows[0];
    if (Number(gaps?.n ?? 0) > 0) problems.push(`${gaps?.n} episode(s) with step gaps or repeats`);
    const paid = await paidTwice(d, runId);
    const calls = await runCalls();
    console.log('');
    printTable(
      ['fault', 'when', 'what happened', 'time lost'],
      rows.map((r) => [r.fault, r.at, r.happened, r.lostS]),
    );
    console.log('');
    printTable(
      ['check', 'value'],
      [
        [
          'run',
          `${runId}: ${(await d.select({ s: runs.status }).from(runs).where(eq(runs.id, runId)))[0]?.s}, ${((Date.now() - started) / 60_000).toFixed(1)} min`,
        ],
        ['checkpoint rows (lineage)', lineage.join(' <- ')],
        ['rollouts (completed / total; distinct identities)', `${eps.filter((e) => e.status === 'completed').length} / ${eps.length}; ${identities}`],
        ['episodes with step gaps or repeats', Number(gaps?.n ?? 0)],
        ['model calls of the run (cache rows; critic calls)', `${calls}; ${(await criticCalls())[0]?.n ?? 0}`],
        ['calls paid twice (extra sends)', `${paid.calls} (${paid.extraSends})`],
        ['sent and never answered', paid.unanswered],
        ['processes that died by themselves', diedByThemselves.length],
      ],
    );
    for (const p of [...problems, ...diedByThemselves.map((x) => `died by itself: ${x}`)]) console.log(`  PROBLEM: ${p}`);
    const ok = problems.length === 0 && diedByThemselves.length === 0;
    console.log(ok ? '\ngrpo-chaos: every fault survived; one checkpoint per epoch, lineage linear' : '\ngrpo-chaos: FAILED (see above)');
    return ok ? 0 : 1;
  } finally {
    await rig.close();
  }
}

runChaosMain('grpo-chaos', main, procs);
