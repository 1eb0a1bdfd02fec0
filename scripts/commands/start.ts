// `npm start`: the main job. The plan first (stages, estimates), then the stack with the local model
// install beside it, workers in this process, the doctor, then the job; keeps the UI up until Ctrl-C, or
// exits when the job is done with --once. Ends with the time each stage took (docs/cli.md, "npm start").
import path from 'node:path';
import { TASK_QUEUES } from '../../domain/temporal/queues';
import { temporalUiUrl } from '../../config/services';
import { env } from '../../config/env';
import { connectClient } from '../../config/temporal';
import { startWorkers } from '../../workers/runWorkers';
import { installedModels } from '../../platform/models/local/install';
import { LOCAL_PREFIX } from '../../domain/llm/localModels';
import { parseCommandArgs } from '../lib/args';
import { startOptions } from '../options/start';
import { formatDoctor, runDoctor } from '../client/doctor';
import { defaultJudgeToInstall, installDefaultJudge, runMainJob } from '../client/mainJob';
import { localModelsInUse } from '../client/localModels';
import { stageClock, startPlanLines } from '../client/startStages';
import { serveLocalModels, stackUp } from '../../platform/stack/stack';
import { errorText } from '../../domain/temporal/errorText';

export async function run(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs(argv, startOptions);
  const clock = stageClock();
  const inUse = localModelsInUse();
  const installed = new Set(installedModels().map((m) => `${LOCAL_PREFIX}${m}`));
  const judge = defaultJudgeToInstall();
  const toInstall = [...inUse.filter((m) => !installed.has(m)), ...(judge ? [judge] : [])];
  for (const line of startPlanLines({
    modelsInUse: [...inUse, ...(judge ? [judge] : [])],
    modelsToInstall: toInstall,
    judgeCard: inUse.length > 0 || Boolean(judge),
  }))
    console.log(line);
  // The local models install and start beside the stack and the dataset build: a download and a hash
  // check, then a server loading its weights, needing nothing of the stack. Their lines are prefixed and
  // drawn without an in-place progress line (the dataset build draws one at the same time).
  const modelLog = (l: string) => console.log(`[models] ${l}`);
  const serveModels = async () => {
    // Both downloads at once; then the judge just installed (now a model in use) is served too.
    modelLog(`${toInstall.length > 0 ? `installing ${toInstall.join(', ')} (download, hash check) and ` : ''}starting the local model servers`);
    const [judgeLine] = await Promise.all([installDefaultJudge(), serveLocalModels(inUse, modelLog, { quiet: true })]);
    if (judgeLine) modelLog(judgeLine);
    if (judge) await serveLocalModels(localModelsInUse(), modelLog, { quiet: true, skip: new Set(inUse) });
  };
  const modelsReady =
    inUse.length === 0 && !judge
      ? Promise.resolve()
      : clock
          .time('models', serveModels)
          .catch((err: unknown) =>
            console.log(`[models] FAILED: ${errorText(err)} (a turn of a model that is not installed fails, naming: npm run pau -- models install)`),
          );
  console.log('== stack');
  await clock.time('stack', () => stackUp(console.log));
  console.log('== workers');
  const workers = await clock.time('workers', () =>
    startWorkers([TASK_QUEUES.main, TASK_QUEUES.sandbox, TASK_QUEUES.gpu], console.log, { logFile: path.join(env().PAU_STATE_DIR, 'logs', 'workers.log') }),
  );
  const client = await connectClient();
  let code = 0;
  let datasetReady = false;
  try {
    console.log('== doctor');
    const report = await clock.time('doctor', () => runDoctor(client));
    console.log(formatDoctor(report));
    console.log(`doctor: ${report.ok ? 'all parts pass' : 'FAILED'} (${report.workflowId})`);
    if (!report.ok) code = 1;
    // The main job: the dataset if missing, then a small benchmark (scripts/client/mainJob.ts).
    else {
      const job = await runMainJob(client, console.log, { clock, beforeBenchmark: modelsReady });
      code = job.code;
      datasetReady = job.datasetReady;
    }
  } finally {
    await client.connection.close();
    await modelsReady;
    console.log('');
    for (const line of clock.summaryLines()) console.log(line);
    clock.save({ datasetReady });
  }
  console.log(`\nTemporal Web UI: ${temporalUiUrl()}`);
  if (values.once) {
    await workers.shutdown();
    console.log('done (--once). The stack keeps running; `npm run pau -- stack down` stops it.');
    return code;
  }
  console.log('Workers are running. Press Ctrl-C to stop them (the stack keeps running; `npm run pau -- stack down` stops it).');
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  console.log('\nstopping workers…');
  await workers.shutdown();
  return code;
}
