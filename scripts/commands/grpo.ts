// `pau grpo train | report`: an AAC-GRPO run (epochs of rollouts by the policy, the frozen critic's step
// rewards, the update on pau-gpu, the new checkpoint, its validation benchmark beside the base) and its HTML
// report. Needs workers (`npm run workers`).
import { checkDirectoryBase } from '../client/directoryBase';
import type { WorkflowHandle } from '@temporalio/client';
import { workflowUiLink } from '../../config/services';
import { connectClient } from '../../config/temporal';
import { connect, type Db } from '../../db/client';
import type { GrpoConfig, GrpoResult } from '../../domain/training/grpo';
import { testSplitRefusal } from '../../domain/training/trainingSplit';
import { checkJudgeCard } from '../client/judgeCard';
import { maxLengthFor, rolloutWindowFor } from '../lib/trainingArgs';
import { parseCommandArgs, UsageError } from '../lib/args';
import { grpoReportOptions, grpoTrainOptions } from '../options/grpo';
import { requireCritic, requireKnownModels, requireMethodsOfSplit } from '../lib/benchArgs';
import { isExecCritic } from '../../domain/training/execCritic';
import { checkpointBases, checkSelfJudge, requireJudge } from '../client/judgeChoice';
import { selfJudgeRelation, type SelfJudgePair } from '../../domain/judge/selfJudge';
import { newRunId } from '../client/bench';
import { startGrpo } from '../client/starters';
import { watchWorkflow } from '../client/watchWorkflow';
import { grpoProgressLine } from '../client/grpoProgress';
import { grpoProgressQuery } from '../../workflows/training/grpoQueries';
import { printFinishedTraining, printTrainingReport } from '../client/report';

async function watch(db: Db, handle: WorkflowHandle, runId: string): Promise<GrpoResult> {
  const started = Date.now();
  return watchWorkflow<GrpoResult>(handle, () => grpoProgressLine(db, runId, started, () => handle.query(grpoProgressQuery)), {
    pollMs: { tty: 2_000, plain: 15_000 },
    plainMinIntervalMs: 0,
  });
}

async function train(argv: string[]): Promise<number> {
  const { values: v, positionals } = parseCommandArgs(argv, grpoTrainOptions);
  if (positionals.length > 0) throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`);
  const refusal = testSplitRefusal('grpo train (rollouts to train on)', v.split, v['allow-test-split']);
  if (refusal) throw new UsageError(refusal);
  if (v['std-floor'] !== undefined && v['advantage-scale'] !== 'std') throw new UsageError('--std-floor needs --advantage-scale std');
  const critic = v.critic ?? v.base;
  requireKnownModels([v.base, ...(v['judge-model'] ? [v['judge-model']] : [])]);
  requireCritic(critic);
  // The execution critic is no model: no base, no relation to the policy.
  const criticModels = isExecCritic(critic) ? [] : [critic];
  // The trained rollouts fit what the policy is served with: max_length defaults to its serving context.
  const maxLength = maxLengthFor(v.base, v['max-length']);
  // A policy on vLLM: as many rollouts in flight as its engine batches (llama.cpp: the default window).
  const rolloutWindow = rolloutWindowFor(v.base, v['rollout-window'], v['methods-per-epoch'] * v.group);
  const bases = await checkpointBases([v.base, ...criticModels, ...(v['judge-model'] ? [v['judge-model']] : [])]);
  const judgeModel = requireJudge([v.base], v['judge-model'], 'GRPO (the outcome reward)', bases);
  // The judge scores the rollouts (the outcome reward) and the validation runs: it must not be the policy,
  // its base or a checkpoint of it. The step critic is the paper's design: a frozen model on the policy's
  // own backbone with privileged information (the gold description); it never gives the final score, so it
  // is allowed and its relation is recorded (issue 27: only a critic "for the final score" is refused).
  const selfJudge: SelfJudgePair[] = checkSelfJudge([v.base], [{ model: judgeModel, role: 'judge' }], {
    allow: v['allow-self-judge'],
    bases,
    otherFlags: '--judge-model M',
  });
  const criticRelation = criticModels.length > 0 ? selfJudgeRelation(v.base, critic, (m) => bases.get(m)) : undefined;
  if (criticRelation && v.reward !== 'outcome') selfJudge.push({ agent: v.base, judge: critic, role: 'critic', relation: criticRelation });
  const runId = v['run-id'] ?? newRunId('grpo');
  const config: GrpoConfig & { selfJudge?: SelfJudgePair[] } = {
    base: v.base,
    critic,
    criticFormat: v['critic-format'],
    judgeModel,
    dataset: v.dataset,
    split: v.split,
    methodsPerEpoch: v['methods-per-epoch'],
    group: v.group,
    ...(rolloutWindow !== undefined ? { rolloutWindow } : {}),
    epochs: v.epochs,
    budgets: { maxCalls: v['max-calls'], ...(v['max-turns'] ? { maxTurns: v['max-turns'] } : {}) },
    temperature: v.temperature,
    ...(v['max-tokens'] ? { maxTokens: v['max-tokens'] } : {}),
    reward: v.reward,
    codeMatchWeight: v['code-match-weight'],
    ...(v['kl-beta'] !== undefined ? { klBeta: v['kl-beta'] } : {}),
    ...(v['clip-eps'] !== undefined ? { clipEps: v['clip-eps'] } : {}),
    ...(v['tis-cap'] !== undefined ? { tisCap: v['tis-cap'] } : {}),
    ...(v.lr !== undefined ? { lr: v.lr } : {}),
    advantageScale: v['advantage-scale'],
    ...(v['std-floor'] !== undefined ? { stdFloor: v['std-floor'] } : {}),
    ...(v['lora-rank'] !== undefined ? { loraRank: v['lora-rank'] } : {}),
    ...(v['mini-batch-size'] !== undefined ? { miniBatchSize: v['mini-batch-size'] } : {}),
    ...(maxLength !== undefined ? { maxLength } : {}),
    ...(v.threads !== undefined ? { threads: v.threads } : {}),
    seed: v.seed,
    evalEvery: v['eval-every'],
    evalSplit: v['eval-split'],
    evalBudgets: v['eval-budgets'],
    ...(v['eval-limit'] !== undefined ? { evalLimit: v['eval-limit'] } : {}),
    ...(v['allow-unqualified-judge'] ? { allowUnqualifiedJudge: true } : {}),
    ...(v['allow-mixed-stacks'] ? { allowMixedStacks: true } : {}),
    ...(v['eval-methods'] ? { evalMethodIds: v['eval-methods'] } : {}),
    ...(v.methods ? { methodIds: v.methods } : {}),
    ...(selfJudge.length > 0 ? { selfJudge } : {}),
  };
  const h = connect(undefined, 2);
  let client: Awaited<ReturnType<typeof connectClient>> | undefined;
  try {
    // --methods names training methods directly: they pass the same split check as --split.
    if (v.methods) {
      await requireMethodsOfSplit(h.db, 'grpo train', { dataset: v.dataset, split: v.split, methodIds: v.methods, allowTestSplit: v['allow-test-split'] });
    }
    // --eval-methods must be of the evaluation's split (as bench run --methods must be of its --split).
    if (v['eval-methods']) {
      await requireMethodsOfSplit(h.db, 'grpo train (--eval-methods)', {
        dataset: v.dataset,
        split: v['eval-split'],
        methodIds: v['eval-methods'],
        allowTestSplit: true,
      });
    }
    // The judge scores the rollouts and every evaluation: a judge that failed its card is refused unless
    // --allow-unqualified-judge (as bench run does); a missing card is said.
    const cardLines = await checkJudgeCard(h.db, { judgeModel, dataset: v.dataset, allowUnqualified: v['allow-unqualified-judge'] ?? false });
    const baseLine = await checkDirectoryBase(config.base, true);
    client = await connectClient();
    const handle = await startGrpo(client, runId, config);
    console.log(`run id: ${runId}`);
    console.log(`workflow: ${handle.workflowId}  ${workflowUiLink(handle.workflowId)}`);
    console.log(
      `policy ${config.base}, critic ${config.critic} (${isExecCritic(config.critic) ? 'execution: the method run in the sandbox' : config.criticFormat}), judge ${config.judgeModel}, reward ${config.reward}, max_length ${config.maxLength ?? 'trainer default'}`,
    );
    for (const line of cardLines) console.log(line);
    if (baseLine) console.log(baseLine);
    const forced = selfJudge.filter((p) => p.role !== 'critic');
    if (forced.length > 0)
      console.log(`SELF-JUDGING forced (--allow-self-judge): ${forced.map((p) => `${p.role} ${p.judge} ${p.relation} ${p.agent}`).join(', ')}`);
    if (forced.length < selfJudge.length)
      console.log(`critic ${config.critic}: on the policy's own backbone (the paper's frozen AAC critic; it rates steps, the judge scores)`);
    if (v.detach) return 0;
    const started = Date.now();
    const result = await watch(h.db, handle, runId);
    // The report the run stored at its end (reports table, kind grpo): what the terminal shows is its text.
    await printFinishedTraining(
      h.db,
      'grpo',
      runId,
      () => `run ${runId} done in ${Math.round((Date.now() - started) / 1000)} s: ${result.epochs} epochs, last checkpoint ckpt:${result.lastCheckpointId}`,
    );
    return 0;
  } finally {
    await h.close();
    await client?.connection.close();
  }
}

/** `grpo report RUN [--compare R1,R2]`: the stored report (produced now for a run still running or with --compare). */
async function report(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, grpoReportOptions);
  if (positionals.length !== 1) throw new UsageError('report takes one RUN id');
  const runId = positionals[0]!;
  return printTrainingReport({ kind: 'grpo', runId, ...(values.compare ? { compare: values.compare } : {}) }, values.out, (db) =>
    grpoProgressLine(db, runId, Date.now()),
  );
}

export async function run(argv: string[]): Promise<number> {
  const [action, ...rest] = argv;
  if (action === 'train') return train(rest);
  if (action === 'report') return report(rest);
  throw new UsageError(`unknown action ${JSON.stringify(action ?? '')}`);
}
