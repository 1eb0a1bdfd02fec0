// `pau judge --run <runId> --judge-model M [--coder-model M] [--force] [--window N]`: re-scores a stored
// run with a judge model without re-running any agent (new judgments rows keyed by the judge model),
// then writes the run's report for that judge. Needs workers (`npm run workers`, or `npm start`).
import { z } from 'zod';
import { models } from '../../config/models';
import { workflowUiLink } from '../../config/services';
import { connectClient } from '../../config/temporal';
import { closeSharedDb } from '../../db/client';
import { getDb } from '../../db/client';
import { produceReportFiles } from '../client/report';
import { defineOptions, parseCommandArgs, UsageError } from '../lib/args';
import { judgeRunWorkflowId } from '../../domain/judge/workflowIds';
import { startJudgeRun } from '../client/starters';
import { isCheckpointModel } from '../../domain/training/checkpointIds';

const options = defineOptions({
  run: z.string().min(1),
  'judge-model': z.string().min(1),
  'coder-model': z.string().min(1).optional(),
  force: z.boolean().optional(),
  window: z.coerce.number().int().min(1).max(200).optional(),
  out: z.string().min(1).optional(),
});

export const usage = `pau judge ${options.usage}`;

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, options);
  if (positionals.length > 0) throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`);
  const judgeModel = values['judge-model'];
  for (const m of [judgeModel, values['coder-model']])
    if (m && !isCheckpointModel(m) && !models().has(m)) throw new UsageError(`unknown model ${JSON.stringify(m)} (see docs/models.md)`);
  const client = await connectClient();
  try {
    const handle = await startJudgeRun(client, {
      runId: values.run,
      judgeModel,
      coderModel: values['coder-model'],
      force: values.force,
      window: values.window,
    });
    console.log(`judging run ${values.run} with ${judgeModel}: ${workflowUiLink(judgeRunWorkflowId(values.run, judgeModel))}`);
    const r = await handle.result();
    console.log(`judged ${r.judged}, skipped ${r.skipped}, failed ${r.failed}`);
    const report = await produceReportFiles(getDb(), { runId: values.run, judgeModel }, values.out);
    console.log(report.headline);
    console.log(`\nreport: ${report.htmlPath}`);
    return r.failed > 0 ? 1 : 0;
  } finally {
    await client.connection.close();
    await closeSharedDb();
  }
}
