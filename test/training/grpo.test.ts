// AAC-GRPO end to end on the real stack (Temporal, Postgres, sandbox, the trainer on CPU, llama.cpp serving
// the checkpoint): one full epoch of SmolLM2-135M on one fixture method (3 rollouts, the scripted critic
// rating every step, the scripted random judge giving the outcome, the update, the checkpoint, the
// validation benchmark beside the base), then the second epoch's rollouts, after which the run is stopped
// (a second update would double the test's time). Checks that the critic's rewards and rationales are
// stored per step, the update changed the adapter, the validation benchmark ran on the new checkpoint, and
// the second epoch's rollouts were sampled from it (served by llama.cpp with its GGUF adapter).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { and, asc, eq, isNotNull, like } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { llmCalls } from '../../db/schema/llm';
import { reports } from '../../db/schema/reports';
import { episodes, runs, steps } from '../../db/schema/runs';
import { checkpoints } from '../../db/schema/training';
import { startGrpo } from '../../scripts/client/starters';
import { checkpointModelName } from '../../domain/training/checkpointIds';
import {
  GRPO_STAGES,
  type GrpoConfig,
  type GrpoEpochFigures,
  type GrpoProgress,
  grpoCheckpointId,
  grpoEvalRunId,
  ROLLOUT_SAMPLING,
} from '../../domain/training/grpo';
import { grpoProgressQuery } from '../../workflows/training/grpoQueries';
import { grpoProgressLine } from '../../scripts/client/grpoProgress';
import { loadGrpoReport } from '../../db/queries/grpoReportData';
import { BASE_ADAPTER } from '../../domain/training/sampledWith';
import { epochCounts, grpoEpochLine, renderGrpoReport } from '../../domain/trainingReport/grpoReport';
import { countsLine } from '../../domain/trainingReport/trainingCounts';
import { produceReport } from '../../platform/report/produceReport';
import { ensureTrainerPython } from '../../activities/training/trainerProcess';
import { ADD, insertFixtureMethods, REVERSE } from '../fixtures/episodeMethods';
import { grpoConfig, SMOLLM2_TOY_RUN } from '../fixtures/grpoConfig';
import { useStack } from '../helpers/stack';
import { maybeRecordHistory, type PrivateTrainerDirs, privateTrainerDirs } from './helpers';

let dirs: PrivateTrainerDirs | undefined;

// The validation benchmark runs at the benchmark's budgets and the model's own request params (its registry
// entry), not the training ones. The built-in SmolLM2 entry asks for up to 384 tokens a turn, and SmolLM2 at
// temperature 0 writes prose up to that limit turn after turn (about 1,500 tokens an episode at 1 thread: a
// third of this test's time). A models file gives the same built-in entry a default of EVAL_MAX_TOKENS instead
// (a value no training setting uses, so the eval's requests show it came from the registry, checked below).
const EVAL_MAX_TOKENS = 40;
const modelsFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pau-grpo-models-')), 'models.json');
fs.writeFileSync(
  modelsFile,
  JSON.stringify({
    models: {
      'local/smollm2-135m': {
        provider: 'local',
        model: 'smollm2-135m',
        maxConcurrency: 2,
        timeoutMs: 600_000,
        params: { temperature: 0, max_tokens: EVAL_MAX_TOKENS },
      },
    },
  }),
);
process.env.PAU_MODELS_FILE = modelsFile; // read once by this process's registry (and its in-process workers)

const stack = useStack({
  workers: ['pau', 'pau-sandbox', 'pau-gpu'],
  timeoutMs: 2_700_000,
  setup: async ({ db }) => {
    dirs = await privateTrainerDirs('grpo');
    await insertFixtureMethods(db, 'fixture-grpo', [ADD], 'train');
    await insertFixtureMethods(db, 'fixture-grpo', [REVERSE], 'validation');
  },
});

afterAll(() => {
  dirs?.release();
  fs.rmSync(path.dirname(modelsFile), { recursive: true, force: true });
});

/** Largest |lora_B| in an adapter file (peft initialises B to zero, so > 0 means the update moved it). */
async function maxLoraB(file: string): Promise<number> {
  const py = await ensureTrainerPython();
  const code =
    'import sys\nfrom safetensors.torch import load_file\nt=load_file(sys.argv[1])\nprint(max(float(v.abs().max()) for k,v in t.items() if "lora_B" in k))';
  return Number(execFileSync(py, ['-c', code, file], { encoding: 'utf8' }).trim());
}

// In every run: 2.5 min on an idle 2-core machine (18.5 min when four other suites shared it).
// PAU_GRPO_E2E=0 skips it for a quick local pass.
describe.skipIf(process.env.PAU_GRPO_E2E === '0')('grpo train', () => {
  it('one epoch on SmolLM2: critic rewards stored, adapter changed, validation on the checkpoint, epoch 2 sampled from it', async () => {
    const runId = `grpo-e2e-${Date.now().toString(36)}`;
    const config = grpoConfig({
      ...SMOLLM2_TOY_RUN,
      dataset: 'fixture-grpo',
      group: 3,
      // Fewer than the group: the third rollout starts when one of the first two ends.
      rolloutWindow: 2,
      lr: 0.002,
      evalLimit: 1,
    });
    const handle = await startGrpo(stack.client, runId, config);
    // The first execution (epoch 1; the run continues as new for epoch 2), described while it still runs.
    const first = stack.client.workflow.getHandle(handle.workflowId, (await handle.describe()).runId);
    // Wait for epoch 2's three rollouts to end, then stop the run (its second update is not needed here).
    const epoch2Done = async () =>
      (await stack.db.select().from(episodes).where(eq(episodes.runId, runId))).filter((e) => e.sample >= 1000 && ['completed', 'failed'].includes(e.status))
        .length === 3;
    const deadline = Date.now() + 2_400_000;
    // The progress query asked on every poll (the handle follows the run across continue-as-new), and the CLI's line.
    const seen: GrpoProgress[] = [];
    let line = '';
    while (!(await epoch2Done())) {
      if (Date.now() > deadline) throw new Error('epoch 2 rollouts did not finish in time');
      const d = await handle.describe();
      if (d.status.name !== 'RUNNING') throw new Error(`the run ended early: ${d.status.name}`);
      // One query per poll, kept and shown (a query can fail while the run continues as new between epochs, and
      // the line then leaves the stage out; the checks below need answers from both epochs).
      line = await grpoProgressLine(stack.db, runId, Date.now(), async () => {
        const p = await handle.query(grpoProgressQuery);
        seen.push(p);
        return p;
      });
      await new Promise((r) => setTimeout(r, 5_000));
    }
    // grpo-epoch1.json is the history from before the evaluation ran at the benchmark's budgets (no patch marker),
    // grpo-epoch1-eval-benchmark.json from before the rollout window (all rollouts started at once).
    await maybeRecordHistory(first, 'grpo-epoch1-rollout-window.json');
    await handle.terminate('test: epoch 2 rollouts checked');

    // The stages came in the workflow's order and reached epoch 2; the line names the stage and its time.
    const order = seen.map((p) => p.epoch * GRPO_STAGES.length + GRPO_STAGES.indexOf(p.stage));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(seen.some((p) => p.epoch === 0)).toBe(true);
    expect(seen.some((p) => p.epoch === 1)).toBe(true);
    expect(line).toMatch(new RegExp(`^${runId}: epoch [12]/2: (${GRPO_STAGES.join('|')}) \\d+:\\d\\d`));

    const [run] = await stack.db.select().from(runs).where(eq(runs.id, runId));
    const epochs = (run!.summary as { epochs: GrpoEpochFigures[] }).epochs;
    expect(epochs.map((e) => e.epoch)).toEqual([0]);
    const e1 = epochs[0]!;

    // One checkpoint, no parent, registered once; the update moved the adapter (lora_B starts at zero).
    const ckpts = await stack.db.select().from(checkpoints).where(eq(checkpoints.runId, runId));
    expect(ckpts.map((c) => [c.id, c.parentId, c.epoch])).toEqual([[grpoCheckpointId(runId, 0), null, 1]]);
    // The update moves the adapter only when the group had something to learn from: rewards or critic means
    // that differ. The policy's samples are seeded, but llama.cpp's batched decoding under load can still change
    // them, and three equal rollouts (CI at 3e770bc: all the same reward) give every token advantage 0.
    const g = e1.groups[0]!;
    const varies = (xs: (number | null)[]) => new Set(xs.map((x) => x ?? 'none')).size > 1;
    const maxB = await maxLoraB(ckpts[0]!.adapterPath!);
    if (varies(g.rewards) || varies(g.criticMeans)) {
      expect(maxB).toBeGreaterThan(0);
      expect(e1.update.steps).toBeGreaterThan(0);
    } else {
      // Equal rewards and critic means: usually nothing to learn, and then the trainer saves the fresh adapter
      // and runs no step (docs/training.md); per-step critic ratings can still differ. Either way the adapter
      // moved exactly when steps ran.
      console.log(`grpo e2e: the group's rewards were all equal (${JSON.stringify(g)}); update steps ${e1.update.steps}`);
      expect(maxB > 0).toBe(e1.update.steps > 0);
    }

    // Epoch 1's rollouts came from the base, epoch 2's from the checkpoint, and ran to completion.
    const eps = await stack.db.select().from(episodes).where(eq(episodes.runId, runId)).orderBy(asc(episodes.sample));
    expect(eps).toHaveLength(6);
    expect(eps.slice(0, 3).map((e) => e.model)).toEqual(Array(3).fill('local/smollm2-135m'));
    expect(eps.slice(3).map((e) => e.model)).toEqual(Array(3).fill(checkpointModelName(ckpts[0]!.id)));
    expect(eps.slice(3).map((e) => e.status)).toEqual(['completed', 'completed', 'completed']);
    expect(e1).toMatchObject({ policyModel: 'local/smollm2-135m', checkpointId: ckpts[0]!.id, rollouts: 3 });
    // Each rollout recorded what served its turns: epoch 1's the base, epoch 2's the checkpoint's trained adapter
    // (llama.cpp served its GGUF export); epoch 1's update checked its batch against its own adapter and trained.
    expect(eps.slice(0, 3).map((e) => e.sampledWith)).toEqual(Array(3).fill([BASE_ADAPTER]));
    expect(eps.slice(3).map((e) => e.sampledWith)).toEqual(Array(3).fill([ckpts[0]!.adapterSha256]));
    // llama.cpp returned each turn's sampled ids and log-probs, and the update trained those ids: no policy token
    // re-tokenised from text; with steps run, the trainer's log-probs of them against llama.cpp's are reported.
    expect(e1.update.retokenisedTokens).toBe(0);
    expect(e1.update.sampledTokens).toBeGreaterThan(0);
    if (e1.update.steps > 0) expect(e1.update.samplerGap).toBeGreaterThan(0);
    expect(grpoEpochLine(e1, undefined)).toMatch(/tokens trained as sampled [1-9]\d*, re-tokenised 0/);

    // The critic's rewards are on the assistant steps with the scripted critic's rationale.
    const rated = await stack.db
      .select({ r: steps.criticReward, why: steps.criticRationale, kind: steps.kind, ep: steps.episodeId })
      .from(steps)
      .where(and(like(steps.episodeId, `${runId}/%`), isNotNull(steps.criticRationale)));
    expect(rated.filter((s) => eps.slice(0, 3).some((e) => e.id === s.ep)).length).toBe(e1.ratedSteps);
    for (const s of rated) {
      expect(s.kind).toBe('assistant');
      expect(s.why).toContain('scripted');
      // the scripted rule's scores (0, 2, 6, 9 and their rounded means), scaled by 1/10
      expect(s.r).not.toBeNull();
      expect(Number.isInteger(Math.round(s.r! * 1e6) / 1e5)).toBe(true);
      expect(s.r!).toBeLessThanOrEqual(0.9);
    }

    // Every critic answer carried its reward line (the scripted critic answers in the asked format); the share
    // is null when the rollouts made no call for the critic to rate (SmolLM2 at 48 tokens often writes prose).
    expect(e1.criticUnparsable).toBe(0);
    expect(e1.criticUnparsableShare).toBe(e1.ratedSteps > 0 ? 0 : null);

    // The rollouts' requests sampled from the full distribution: recorded in the run's config and sent as
    // llama.cpp's top_k / top_p / min_p beside the temperature (the ledger holds what was sent).
    expect((run!.config as GrpoConfig).sampling).toEqual(ROLLOUT_SAMPLING);
    const policyCalls = (await stack.db.select({ model: llmCalls.model, request: llmCalls.request }).from(llmCalls)).filter(
      (c) => [config.base, checkpointModelName(ckpts[0]!.id)].includes(c.model) && (c.request as { temperature?: number }).temperature === 1,
    );
    expect(policyCalls.length).toBeGreaterThanOrEqual(6);
    for (const c of policyCalls) expect(c.request).toMatchObject({ temperature: 1, top_k: 0, top_p: 1, min_p: 0, max_tokens: config.maxTokens });

    // The validation benchmark ran on the new checkpoint beside the base, judged.
    const ev = e1.eval!;
    expect(ev.runId).toBe(grpoEvalRunId(runId, 0));
    expect(ev.checkpoint).toMatchObject({ model: checkpointModelName(ckpts[0]!.id), episodes: 1 });
    expect(ev.base).toMatchObject({ model: 'local/smollm2-135m', episodes: 1 });
    // Both arms on one serving stack (no vllm entry here: llama.cpp), named in the figures.
    expect(ev.stacks?.base).toMatch(/^llama\.cpp .*smollm2-135m.* \(GGUF\)$/);
    expect(ev.stacks).toEqual({ checkpoint: ev.stacks?.base, base: ev.stacks?.base });
    expect(ev.checkpoint.meanScore).not.toBeNull();
    // ... at the benchmark's budgets and params (bench run's defaults, not the training budget of 2 calls),
    // summarised like a benchmark run: every episode counted, the checkpoint paired with the base by method.
    const [evalRun] = await stack.db.select({ config: runs.config }).from(runs).where(eq(runs.id, ev.runId));
    expect(evalRun!.config).not.toHaveProperty('budgets');
    expect(evalRun!.config).not.toHaveProperty('params');
    expect(ev.counting).toBe('all');
    expect(ev.paired!.score.n).toBe(1);
    // ... and its requests carried the model's own params (the registry's max_tokens), not the training ones.
    const evalCalls = (await stack.db.select({ model: llmCalls.model, request: llmCalls.request }).from(llmCalls)).filter(
      (c) => [config.base, checkpointModelName(ckpts[0]!.id)].includes(c.model) && (c.request as { temperature?: number }).temperature === 0,
    );
    expect(new Set(evalCalls.map((c) => c.model))).toEqual(new Set([config.base, checkpointModelName(ckpts[0]!.id)]));
    for (const c of evalCalls) expect(c.request).toMatchObject({ temperature: 0, max_tokens: EVAL_MAX_TOKENS });

    // Every rollout has a verdict: policy failures (no description) count at the minimum reward in their group,
    // the rest as judged (the scripted judge judges every completed episode, so no group is skipped).
    const descriptions = eps.slice(0, 3).filter((e) => e.status === 'completed' && e.finalDescription?.trim()).length;
    expect(e1.outcomes).toMatchObject({ policyFailures: 3 - descriptions, unjudgedRollouts: 0, skippedGroups: 0 });
    expect(e1.groups[0]!.rewards.every((r) => r !== null)).toBe(true);

    // The report renders every section from the stored run.
    const html = renderGrpoReport((await loadGrpoReport(stack.db, runId))!);
    for (const s of ['Learning curves', 'Reward distribution per group', 'The best group', 'Validation (benchmark runs)']) expect(html).toContain(s);
    // The scripted judge has no card: its validation figures are withheld (no score chart), the rewards stay.
    expect(html).toContain('Validation figures from this judge are withheld');
    expect(html).not.toContain('validation score (1-5)');
    // No critic card was computed for this critic: the report says so and prints the command.
    expect(html).toContain('Compute it with <code>npm run pau -- calibrate critic --critic mock-oracle --dataset fixture-grpo</code>');
    // ... and stored as kind grpo, with what each update left out (issue 23). The run was terminated above, so its
    // own last step never ran: produce the report the way `grpo report` does for a run that did not finish.
    const counts = epochCounts(e1, config.maxLength);
    expect(counts).not.toBeNull();
    await produceReport(stack.db, { kind: 'grpo', runId });
    const [rep] = await stack.db
      .select()
      .from(reports)
      .where(and(eq(reports.runId, runId), eq(reports.kind, 'grpo')));
    expect(rep?.text).toContain(countsLine(counts!, 'rollout'));
    expect(rep?.html).toContain('Left out of training');
  }, 2_700_000);
});
