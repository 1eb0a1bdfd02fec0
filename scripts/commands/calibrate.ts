// `pau calibrate [--dataset pau-v1] [--split test] [--limit N] [--window 4] [--run-id ID]`: the calibration
// suite, independent of any judge model: code match of each method's original against itself (must be
// 1.0), of small mutants of it (operator swap, constant change, off-by-one, swapped branch; generated from
// its AST in the sandbox), of constant functions (the floor) and of the identity function. Stored in the
// run's row (kind `calibration`); reports of benchmark runs on the same split show the latest one.
// `pau calibrate ladder` is retired: the judge card (`pau calibrate judge`) measures its ladder (gold >= partial
// >= wrong >= empty, "monotone ladder") with the other checks; the verb exits 2 saying so.
// `pau calibrate judge --judge M`: the judge card; `pau calibrate critic --critic M [--run RUN | --dataset D
// --split S] [--episodes N]`: the GRPO critic's card (domain/training/criticCard.ts); `pau calibrate critic
// --on-policy --policy M [--critic X ...]`: every critic on the policy's own rollouts (domain/training/onPolicyCard.ts).
// All exit 1 when not qualified.
import { WorkflowFailedError } from '@temporalio/client';
import { workflowUiLink } from '../../config/services';
import { connectClient } from '../../config/temporal';
import { closeSharedDb, getDb } from '../../db/client';
import { calibrationRows } from '../../domain/calibration/summarize';
import { calibrationWorkflowId } from '../../domain/calibration/workflowIds';
import { printTable } from '../../domain/report/table';
import { newRunId } from '../client/bench';
import { calibrationProgress, startCalibration } from '../client/calibration';
import { parseCommandArgs, UsageError } from '../lib/args';
import { calibrateOptions, criticCardOptions, judgeCardOptions, onPolicyCardOptions } from '../options/calibrate';
import { requireCritic, requireKnownModels } from '../lib/benchArgs';
import { judgeCardLines } from '../../domain/judge/cardSummary';
import { startCriticCard, startJudgeCard, startOnPolicyCard } from '../client/starters';
import { criticCardLines } from '../../domain/training/criticCard';
import { cardLine } from '../client/cardWatch';
import { watchWorkflow } from '../client/watchWorkflow';
import { criticLabelOf, durationText, onPolicyCardLines, onPolicyCritics, onPolicyTable, type OnPolicyCardResult } from '../../domain/training/onPolicyCard';
import { EXEC_CRITIC, isExecCritic } from '../../domain/training/execCritic';
import { testSplitRefusal } from '../../domain/training/trainingSplit';
import { formatTable } from '../../domain/report/table';
import { checkpointBases, requireJudge } from '../client/judgeChoice';
import { rolloutWindowFor } from '../lib/trainingArgs';
import { checkShippedCard, watchCardWorkflow } from '../client/judgeCard';
import { judgeCardProgressQuery } from '../../workflows/judge/judgeCardQueries';
import { criticCardProgressQuery } from '../../workflows/training/criticCardQueries';
import { failureLine } from '../client/benchStart';
import { repoPath, shipStoredCard } from '../../platform/judge/shippedCardFile';
import { judgeCardStatus } from '../../db/queries/judgeCards';
import type { JudgeFormat } from '../../domain/judge/judgePrompt';

/** `pau calibrate judge`: computes (or reuses) the judge card of a judge and code writer, prints it; exit 1 when either is not qualified. */
async function judgeCard(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, judgeCardOptions);
  if (positionals.length > 0) throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`);
  const coder = values.coder ?? values.judge;
  requireKnownModels([values.judge, coder]);
  if (values['ship-dir'] && !values.ship && !values.shipped)
    throw new UsageError('--ship-dir is where --ship writes the card and --shipped reads it: give one of them');
  if (values.ship && values.shipped) throw new UsageError("--ship writes this machine's card, --shipped checks the shipped one: give one of them");
  if (values.shipped) return shippedCard(values.judge, coder, values);
  const client = await connectClient();
  const started = Date.now();
  try {
    const handle = await startJudgeCard(client, {
      judgeModel: values.judge,
      coderModel: coder,
      dataset: values.dataset,
      split: values.split,
      methods: values.methods,
      window: values.window,
      force: values.force,
      format: values.format,
      ...(values.skip > 0 ? { skip: values.skip } : {}),
      ...(values['code-all-rungs'] ? { codeAllRungs: true } : {}),
      ...(values['coder-samples'] > 1 ? { coderSamples: values['coder-samples'] } : {}),
      ...(values['min-methods'] ? { thresholds: { minMethods: values['min-methods'] } } : {}),
    });
    console.log(
      `judge card of ${values.judge} (format ${values.format}; coder ${coder}) on ${values.methods} methods of ${values.dataset}/${values.split}${values.skip > 0 ? ` after the first ${values.skip}` : ''}: ${workflowUiLink(handle.workflowId)}`,
    );
    let card: Awaited<ReturnType<typeof handle.result>>;
    try {
      card = await watchCardWorkflow(handle, judgeCardProgressQuery, values.methods);
    } catch (err) {
      if (!(err instanceof WorkflowFailedError)) throw err;
      console.error(`\njudge card failed: ${failureLine(err)}`);
      return 1;
    }
    console.log(
      `card computed in ${((Date.now() - started) / 1000).toFixed(0)} s${card.failedMethods > 0 ? ` (${card.failedMethods} method(s) failed and are left out)` : ''}`,
    );
    for (const line of judgeCardLines({ ...card, rows: [] })) console.log(line);
    if (values.ship) {
      const shipped = await shipStoredCard(
        getDb(),
        {
          judgeModel: values.judge,
          coderModel: coder,
          dataset: values.dataset,
          split: values.split,
          format: values.format,
          ...(values['coder-samples'] > 1 ? { coderSamples: values['coder-samples'] } : {}),
        },
        values['ship-dir'],
      );
      console.log(`shipped: ${repoPath(shipped.file)} (${shipped.methods} methods; \`npm start\` verifies it on a sample instead of computing the card)`);
    }
    return card.judgeQualified && card.coderQualified ? 0 : 1;
  } finally {
    await client.connection.close();
    await closeSharedDb();
  }
}

/** `pau calibrate judge --shipped`: the shipped card checked on a sample, as `npm start` does; exit 0 when verified and qualified. */
async function shippedCard(
  judgeModel: string,
  coderModel: string,
  values: { dataset: string; split: string; format: JudgeFormat; 'ship-dir'?: string | undefined },
): Promise<number> {
  const client = await connectClient();
  const started = Date.now();
  try {
    const check = await checkShippedCard(
      client,
      {
        judgeModel,
        coderModel,
        dataset: values.dataset,
        split: values.split,
        format: values.format,
        ...(values['ship-dir'] ? { cardsDir: values['ship-dir'] } : {}),
      },
      (line) => console.log(line),
    );
    console.log(`checked in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    if (check.status !== 'verified') return 1;
    const status = await judgeCardStatus(getDb(), { judgeModel, coderModel, dataset: values.dataset, format: values.format });
    if (status.status === 'missing') return 1;
    for (const line of judgeCardLines({ ...status.card, rows: [] })) console.log(line);
    return status.status === 'qualified' && status.card.coderQualified ? 0 : 1;
  } finally {
    await client.connection.close();
    await closeSharedDb();
  }
}

/** `pau calibrate critic`: computes (or reuses) the critic card of a critic model, prints it; exit 1 when not qualified. */
async function criticCard(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, criticCardOptions);
  if (positionals.length > 0) throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`);
  if (isExecCritic(values.critic))
    throw new UsageError(
      `--critic ${EXEC_CRITIC}: the execution critic has no card on recorded episodes; it is scored on the policy's rollouts: calibrate critic --on-policy --policy M --critic ${EXEC_CRITIC}`,
    );
  requireKnownModels([values.critic]);
  const client = await connectClient();
  const started = Date.now();
  try {
    const handle = await startCriticCard(client, {
      criticModel: values.critic,
      ...(values.run ? { runId: values.run } : {}),
      dataset: values.dataset,
      split: values.split,
      episodes: values.episodes,
      window: values.window,
      force: values.force,
      format: values.format,
      ...(values.skip > 0 ? { skip: values.skip } : {}),
      ...(values['min-episodes'] ? { thresholds: { minEpisodes: values['min-episodes'] } } : {}),
    });
    console.log(
      `critic card of ${values.critic} (${values.format}) on ${values.episodes} recorded episodes of ${values.run ? `run ${values.run}` : `${values.dataset}/${values.split}`}${values.skip > 0 ? ` after the first ${values.skip}` : ''}: ${workflowUiLink(handle.workflowId)}`,
    );
    let card: Exclude<Awaited<ReturnType<typeof handle.result>>, OnPolicyCardResult>;
    try {
      const r = await watchCardWorkflow(handle, criticCardProgressQuery, values.episodes, { unit: 'episodes' });
      if ('onPolicy' in r) throw new Error(`workflow ${handle.workflowId} returned an on-policy card`);
      card = r;
    } catch (err) {
      if (!(err instanceof WorkflowFailedError)) throw err;
      console.error(`\ncritic card failed: ${failureLine(err)}`);
      return 1;
    }
    console.log(
      `card computed in ${((Date.now() - started) / 1000).toFixed(0)} s${card.failedEpisodes > 0 ? ` (${card.failedEpisodes} episode(s) failed and are left out)` : ''}`,
    );
    for (const line of criticCardLines(card)) console.log(line);
    return card.qualified ? 0 : 1;
  } finally {
    await client.connection.close();
    await closeSharedDb();
  }
}

/**
 * `pau calibrate critic --on-policy`: the policy's rollouts (recorded once), every critic's rating pass, the
 * cards side by side with each pass's time; exit 0 when every critic named with --critic (exec when none is)
 * qualified, 1 otherwise.
 */
async function onPolicyCard(argv: string[]): Promise<number> {
  const { values: v, positionals } = parseCommandArgs(argv, onPolicyCardOptions);
  if (positionals.length > 0) throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`);
  const refusal = testSplitRefusal('calibrate critic --on-policy (the rollouts rated)', v.split, false);
  if (refusal) throw new UsageError(refusal);
  requireKnownModels([v.policy, ...(v['judge-model'] ? [v['judge-model']] : [])]);
  for (const c of v.critic) requireCritic(c);
  const bases = await checkpointBases([v.policy, ...(v['judge-model'] ? [v['judge-model']] : [])]);
  const judgeModel = requireJudge([v.policy], v['judge-model'], 'the on-policy critic card (the code match of its rollouts)', bases);
  const critics = onPolicyCritics(v.critic, v.format);
  const named = v.critic.length > 0 ? v.critic : [EXEC_CRITIC];
  const rolloutWindow = rolloutWindowFor(v.policy, v['rollout-window'], v.methods * v.group);
  const client = await connectClient();
  const started = Date.now();
  try {
    const { runId, handle } = await startOnPolicyCard(client, {
      config: {
        base: v.policy,
        judgeModel,
        dataset: v.dataset,
        split: v.split,
        methodsPerEpoch: v.methods,
        group: v.group,
        ...(rolloutWindow !== undefined ? { rolloutWindow } : {}),
        budgets: { maxCalls: v['max-calls'], ...(v['max-turns'] ? { maxTurns: v['max-turns'] } : {}) },
        temperature: v.temperature,
        ...(v['max-tokens'] ? { maxTokens: v['max-tokens'] } : {}),
        seed: v.seed,
      },
      critics,
      window: v.window,
      ...(v.force ? { force: true } : {}),
      ...(v['min-groups'] ? { thresholds: { minGroups: v['min-groups'] } } : {}),
    });
    console.log(
      `on-policy critic card of ${critics.map(criticLabelOf).join(', ')} on ${v.methods} methods x ${v.group} rollouts of ${v.policy} (${v.dataset}/${v.split}, seed ${v.seed}, judge ${judgeModel}; run ${runId}): ${workflowUiLink(handle.workflowId)}`,
    );
    let result: OnPolicyCardResult;
    try {
      const r = await watchCardWorkflow(handle, criticCardProgressQuery, v.methods * v.group * (1 + critics.length), { unit: 'rollouts and ratings' });
      if (!('onPolicy' in r)) throw new Error(`workflow ${handle.workflowId} returned a card of recorded episodes`);
      result = r;
    } catch (err) {
      if (!(err instanceof WorkflowFailedError)) throw err;
      console.error(`\non-policy critic card failed: ${failureLine(err)}`);
      return 1;
    }
    console.log(
      `\ncard computed in ${((Date.now() - started) / 1000).toFixed(0)} s: ${result.rollouts} rollouts of ${result.methods.length} methods, ${result.completed} ended and rated (${result.reused} recorded before; rollouts ${durationText(result.rolloutsMs)})`,
    );
    const table = onPolicyTable(result.cards);
    console.log(formatTable(table.headers, table.rows));
    for (const card of result.cards) {
      console.log('');
      for (const line of onPolicyCardLines(card)) console.log(line);
    }
    const gate = result.cards.filter((c) => named.includes(c.critic));
    return gate.length > 0 && gate.every((c) => c.qualified) ? 0 : 1;
  } finally {
    await client.connection.close();
    await closeSharedDb();
  }
}

/** What `pau calibrate ladder` prints before it exits 2: the verb is retired, and what replaced it. */
const LADDER_RETIRED =
  'pau calibrate: `ladder` is retired (2026-12-07): the judge card measures the same ladder (gold >= partial >= wrong >= empty: "monotone ladder") beside its other checks; run `npm run pau -- calibrate judge --judge M`';

export async function run(argv: string[]): Promise<number> {
  if (argv[0] === 'ladder') {
    console.error(LADDER_RETIRED);
    return 2;
  }
  if (argv[0] === 'judge') return judgeCard(argv.slice(1));
  if (argv[0] === 'critic') return argv.includes('--on-policy') ? onPolicyCard(argv.slice(1)) : criticCard(argv.slice(1));
  const { values, positionals } = parseCommandArgs(argv, calibrateOptions);
  if (positionals.length > 0) throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`);
  const runId = values['run-id'] ?? newRunId('calibrate');
  const client = await connectClient();
  try {
    const handle = await startCalibration(client, runId, {
      dataset: values.dataset,
      split: values.split,
      ...(values.limit ? { limit: values.limit } : {}),
      ...(values.window ? { window: values.window } : {}),
    });
    console.log(`calibration ${runId}: ${workflowUiLink(calibrationWorkflowId(runId))}`);
    const started = Date.now();
    // The suite's count of methods calibrated, all of them since this start (resumed: 0).
    const count = async () => {
      const p = await calibrationProgress(getDb(), runId);
      return p && p.total > 0 ? { done: p.done, total: p.total, resumed: 0 } : null;
    };
    const summary = await watchWorkflow(handle, cardLine(count, 0), { pollMs: { tty: 2000, plain: 2000 }, plainMinIntervalMs: 0 });
    console.log(`calibrated ${summary.methods} methods in ${((Date.now() - started) / 1000).toFixed(0)} s (run ${runId})`);
    printTable(['control', 'value', 'expected'], calibrationRows(summary));
    if (summary.excluded.length > 0) {
      console.log(`\nexcluded (${summary.excluded.length}):`);
      for (const e of summary.excluded.slice(0, 20)) console.log(`  ${e.methodId}: ${e.reason}`);
    }
    return summary.originalMean !== null && summary.originalMean < 1 ? 1 : 0;
  } finally {
    await client.connection.close();
    await closeSharedDb();
  }
}
