// `pau sft build | export | train | show`: SFT data from judged teacher episodes, its export as JSONL, and an
// SFT run (train, register the checkpoint, benchmark it beside its base). Needs workers (`npm run workers`).
import { checkDirectoryBase } from '../client/directoryBase';
import path from 'node:path';
import { z } from 'zod';
import { workflowUiLink } from '../../config/services';
import { connectClient } from '../../config/temporal';
import { connect } from '../../db/client';
import { loadSftDataset, loadSftExamples } from '../../db/queries/sftData';
import { sftDataRunId, sftEvalRunId } from '../../domain/training/checkpointIds';
import { formatSftSummary, type SftBuildConfig, type SftBuildSummary, sftJsonl } from '../../domain/training/sftData';
import type { SftTrainConfig, SftTrainResult } from '../../domain/training/sftTrain';
import { testSplitRefusal } from '../../domain/training/trainingSplit';
import { parseCommandArgs, UsageError } from '../lib/args';
import { NotFoundError } from '../lib/notFound';
import { sftBuildOptions, sftExportOptions, sftReportOptions, sftTrainOptions } from '../options/sft';
import { requireKnownModels } from '../lib/benchArgs';
import { maxLengthFor } from '../lib/trainingArgs';
import { checkpointBases, checkSelfJudge, requireJudge } from '../client/judgeChoice';
import type { SelfJudgePair } from '../../domain/judge/selfJudge';
import { newRunId } from '../client/bench';
import { startSftBuild, startSftTrain } from '../client/starters';
import { watchSft } from '../client/sftWatch';
import { ensurePrivateDir, writePrivateFile } from '../../platform/process/privateFiles';
import { printFinishedTraining, printTrainingReport } from '../client/report';

function budgetsOf(v: { 'max-calls'?: number; 'max-turns'?: number }) {
  const b = { ...(v['max-calls'] ? { maxCalls: v['max-calls'] } : {}), ...(v['max-turns'] ? { maxTurns: v['max-turns'] } : {}) };
  return Object.keys(b).length > 0 ? { budgets: b } : {};
}

async function build(argv: string[]): Promise<number> {
  const { values: v, positionals } = parseCommandArgs(argv, sftBuildOptions);
  if (positionals.length > 0) throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`);
  const refusal = testSplitRefusal('sft build (training data)', v.split, v['allow-test-split']);
  if (refusal) throw new UsageError(refusal);
  requireKnownModels([v.teacher, ...(v['judge-model'] ? [v['judge-model']] : [])]);
  const bases = await checkpointBases([v.teacher, ...(v['judge-model'] ? [v['judge-model']] : [])]);
  const judgeModel = requireJudge([v.teacher], v['judge-model'], 'SFT', bases);
  // The judge's scores choose which teacher episodes become training data.
  const selfJudge = checkSelfJudge([v.teacher], [{ model: judgeModel, role: 'judge' }], {
    allow: v['allow-self-judge'],
    bases,
    otherFlags: '--judge-model M or PAU_JUDGE_MODEL',
  });
  const dataName = v.name ?? `${v.teacher.replace(/[^A-Za-z0-9._-]+/g, '-')}-${v.split}-${newRunId('sft').slice(4)}`;
  const config: SftBuildConfig & { selfJudge?: SelfJudgePair[] } = {
    name: dataName,
    dataset: v.dataset,
    split: v.split,
    teacher: v.teacher,
    judgeModel,
    settings: v.settings,
    samples: v.samples,
    minScore: v['min-score'],
    minCodeMatch: v['min-code-match'],
    dropContradicting: !v['keep-contradicting'],
    ...(v.limit ? { limit: v.limit } : {}),
    ...(v.window ? { window: v.window } : {}),
    ...budgetsOf(v),
    ...(selfJudge.length > 0 ? { selfJudge } : {}),
  };
  const client = await connectClient();
  const h = connect(undefined, 2);
  try {
    const handle = await startSftBuild(client, config);
    console.log(`data set: ${dataName}`);
    console.log(`workflow: ${handle.workflowId}  ${workflowUiLink(handle.workflowId)}`);
    console.log(`teacher ${v.teacher}, judge ${judgeModel}${judgeModel.startsWith('mock-') ? ' (the scripted judge, not a real LLM)' : ''}`);
    if (v.detach) return 0;
    const summary = await watchSft<SftBuildSummary>(h.db, handle, () => [sftDataRunId(dataName)]);
    console.log(formatSftSummary(summary));
    console.log(`data set: ${dataName}`);
    return summary.kept > 0 ? 0 : 1;
  } finally {
    await h.close();
    await client.connection.close();
  }
}

const noSftData = (name: string) => new NotFoundError(`no SFT data set ${JSON.stringify(name)} (npm run pau -- sft build makes one)`);

async function exportData(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, sftExportOptions);
  if (positionals.length !== 1) throw new UsageError('export takes one data set NAME');
  const dataName = positionals[0]!;
  const h = connect(undefined, 1);
  try {
    if (!(await loadSftDataset(h.db, dataName))) throw noSftData(dataName);
    const examples = await loadSftExamples(h.db, dataName);
    const out = path.resolve(values.out);
    ensurePrivateDir(path.dirname(out));
    writePrivateFile(out, sftJsonl(examples, values.format));
    console.log(`wrote ${examples.length} examples (${values.format} format) to ${out}`);
    return 0;
  } finally {
    await h.close();
  }
}

async function show(argv: string[]): Promise<number> {
  const [dataName, ...more] = argv;
  if (!dataName || more.length > 0) throw new UsageError('show takes one data set NAME');
  const h = connect(undefined, 1);
  try {
    const ds = await loadSftDataset(h.db, dataName);
    if (!ds) throw noSftData(dataName);
    console.log(ds.summary ? formatSftSummary(ds.summary) : `${dataName}: no summary yet`);
    return 0;
  } finally {
    await h.close();
  }
}

async function train(argv: string[]): Promise<number> {
  const { values: v, positionals } = parseCommandArgs(argv, sftTrainOptions);
  if (positionals.length > 0) throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`);
  requireKnownModels(v['judge-model'] ? [v['judge-model']] : []);
  // The trained sequences fit what the base is served with: max_length defaults to its serving context.
  const maxLength = maxLengthFor(v.base, v['max-length']);
  const runId = v['run-id'] ?? newRunId('sft');
  const bases = await checkpointBases([v.base, ...(v['judge-model'] ? [v['judge-model']] : [])]);
  const evalJudge = v['no-eval'] ? null : requireJudge([v.base], v['judge-model'], 'SFT', bases);
  // The evaluation scores the trained checkpoint beside its base: a judge related to the base grades both.
  const selfJudge = checkSelfJudge([v.base], [{ model: evalJudge, role: 'judge' }], {
    allow: v['allow-self-judge'],
    bases,
    otherFlags: '--judge-model M or PAU_JUDGE_MODEL',
  });
  const evalConfig =
    evalJudge === null
      ? null
      : {
          dataset: v['eval-dataset'],
          split: v['eval-split'],
          settings: v['eval-settings'],
          samples: v['eval-samples'],
          judgeModel: evalJudge,
          ...(v['eval-limit'] ? { limit: v['eval-limit'] } : {}),
          ...budgetsOf(v),
        };
  const config: SftTrainConfig & { selfJudge?: SelfJudgePair[] } = {
    data: v.data,
    base: v.base,
    ...(v.epochs !== undefined ? { epochs: v.epochs } : {}),
    ...(v.lr !== undefined ? { lr: v.lr } : {}),
    ...(v['lora-rank'] !== undefined ? { loraRank: v['lora-rank'] } : {}),
    ...(v['lora-alpha'] !== undefined ? { loraAlpha: v['lora-alpha'] } : {}),
    ...(v['max-steps'] !== undefined ? { maxSteps: v['max-steps'] } : {}),
    ...(v['batch-size'] !== undefined ? { batchSize: v['batch-size'] } : {}),
    ...(v['save-every'] !== undefined ? { saveEvery: v['save-every'] } : {}),
    ...(maxLength !== undefined ? { maxLength } : {}),
    ...(v.seed !== undefined ? { seed: v.seed } : {}),
    ...(v.threads !== undefined ? { threads: v.threads } : {}),
    eval: evalConfig,
    ...(selfJudge.length > 0 ? { selfJudge } : {}),
  };
  const client = await connectClient();
  const h = connect(undefined, 2);
  try {
    const ds = await loadSftDataset(h.db, v.data);
    if (!ds) throw new UsageError(`no SFT data set ${JSON.stringify(v.data)} (pau sft build --name ${v.data} ...)`);
    const built = z.object({ dataset: z.string(), split: z.string() }).partial().parse(ds.config);
    const refusal = testSplitRefusal(`sft train on ${v.data} (built from ${built.dataset}/${built.split})`, built.split, v['allow-test-split']);
    if (refusal) throw new UsageError(refusal);
    const baseLine = await checkDirectoryBase(v.base, !v['no-eval']);
    const handle = await startSftTrain(client, runId, config);
    console.log(`run id: ${runId}`);
    if (baseLine) console.log(baseLine);
    console.log(`workflow: ${handle.workflowId}  ${workflowUiLink(handle.workflowId)}`);
    if (v.detach) return 0;
    const started = Date.now();
    const result = await watchSft<SftTrainResult>(h.db, handle, () => [sftEvalRunId(runId)]);
    // The report the run stored at its end (reports table, kind sft): what the terminal shows is its text.
    await printFinishedTraining(
      h.db,
      'sft',
      runId,
      () => `run ${runId} done in ${Math.round((Date.now() - started) / 1000)} s; the model is ${result.checkpointModel}`,
    );
    return 0;
  } finally {
    await h.close();
    await client.connection.close();
  }
}

/** `sft report RUN`: the SFT run's stored report (produced now when the run stored none). */
async function report(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, sftReportOptions);
  if (positionals.length !== 1) throw new UsageError('report takes one RUN id');
  return printTrainingReport({ kind: 'sft', runId: positionals[0]! }, values.out);
}

export async function run(argv: string[]): Promise<number> {
  const [action, ...rest] = argv;
  if (action === 'build') return build(rest);
  if (action === 'export') return exportData(rest);
  if (action === 'train') return train(rest);
  if (action === 'show') return show(rest);
  if (action === 'report') return report(rest);
  throw new UsageError(`unknown action ${JSON.stringify(action ?? '')}`);
}
