// `npm start`: the main job. Stack up, workers in this process, then the job; keeps the UI up until
// Ctrl-C, or exits when the job is done with --once.
import { z } from 'zod';
import { TASK_QUEUES } from '../../domain/temporal/queues';
import { temporalUiUrl } from '../../config/services';
import { connectClient } from '../../config/temporal';
import { startWorkers } from '../../workers/runWorkers';
import { defineOptions, parseCommandArgs } from '../lib/args';
import { formatDoctor, runDoctor } from '../client/doctor';
import { runMainJob } from '../client/mainJob';
import { stackUp } from '../stack/stack';

const options = defineOptions({ once: z.boolean().optional() });

export const usage = `pau start ${options.usage}`;

export async function run(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs(argv, options);
  console.log('== stack');
  await stackUp();
  console.log('== workers');
  const workers = await startWorkers([TASK_QUEUES.main, TASK_QUEUES.sandbox, TASK_QUEUES.gpu]);
  const client = await connectClient();
  let code = 0;
  try {
    console.log('== doctor');
    const report = await runDoctor(client);
    console.log(formatDoctor(report));
    console.log(`doctor: ${report.ok ? 'all parts pass' : 'FAILED'} (${report.workflowId})`);
    if (!report.ok) code = 1;
    // The main job: the dataset if missing, then a small benchmark (scripts/client/mainJob.ts).
    else code = await runMainJob(client);
  } finally {
    await client.connection.close();
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
