// `pau judge --run <runId> --judge-model M [--coder-model M] [--force] [--window N]`: re-scores a stored
// run with a judge model without re-running any agent (new judgments rows keyed by the judge model),
// then writes the run's report for that judge. Needs workers (`npm run workers`, or `npm start`).
import { models } from '../../config/models';
import { workflowUiLink } from '../../config/services';
import { connectClient } from '../../config/temporal';
import { closeSharedDb } from '../../db/client';
import { getDb } from '../../db/client';
import { produceReportFiles } from '../client/report';
import { parseCommandArgs, UsageError } from '../lib/args';
import { requireRun } from '../lib/notFound';
import { judgeOptions } from '../options/judge';
import { judgeRunWorkflowId } from '../../domain/judge/workflowIds';
import { startJudgeRun } from '../client/starters';
import { isCheckpointModel } from '../../domain/training/checkpointIds';
import { episodes } from '../../db/schema/runs';
import { checkpointBases, checkSelfJudge } from '../client/judgeChoice';
import { withSelfJudgePairs } from '../../domain/judge/selfJudge';
import { storedCoderModel } from '../../domain/judge/config';
import { mergeRunJudgeFields, runJudgeFieldsOf } from '../../db/queries/runConfig';
import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client';

/** The models whose episodes the run holds (its agents; a GRPO run's include its checkpoints). */
async function agentModelsOf(db: Db, runId: string): Promise<string[]> {
  const rows = await db.selectDistinct({ model: episodes.model }).from(episodes).where(eq(episodes.runId, runId));
  return rows.map((r) => r.model).sort();
}

/** The code writer the run's config names (domain/judge/config.ts, after the flag), if any. */
async function storedCoderOf(db: Db, runId: string): Promise<string | undefined> {
  const fields = await runJudgeFieldsOf(db, runId);
  return fields && storedCoderModel(fields);
}

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, judgeOptions);
  if (positionals.length > 0) throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`);
  const judgeModel = values['judge-model'];
  for (const m of [judgeModel, values['coder-model']])
    if (m && !isCheckpointModel(m) && !models().has(m)) throw new UsageError(`unknown model ${JSON.stringify(m)} (see docs/models.md)`);
  try {
    await requireRun(getDb(), values.run);
    // The run's agents against the judge and the coder (the flag, else the run's config, else the judge).
    const agents = await agentModelsOf(getDb(), values.run);
    const coder = values['coder-model'] ?? (await storedCoderOf(getDb(), values.run));
    const bases = await checkpointBases([...agents, judgeModel, ...(coder ? [coder] : [])]);
    const graders = [
      { model: judgeModel, role: 'judge' as const },
      { model: coder, role: 'coder' as const },
    ];
    const selfJudge = checkSelfJudge(agents, graders, { allow: values['allow-self-judge'], bases, otherFlags: '--judge-model M, --coder-model M' });
    if (selfJudge.length > 0) {
      // A forced judging is recorded in the run's config: `selfJudge` gains the pairs it did not hold yet.
      await mergeRunJudgeFields(getDb(), values.run, (held) => ({ selfJudge: withSelfJudgePairs(held.selfJudge ?? [], selfJudge) }));
      console.log(`SELF-JUDGING forced (--allow-self-judge): ${selfJudge.map((p) => `${p.role} ${p.judge} ${p.relation} ${p.agent}`).join(', ')}`);
    }
  } catch (err) {
    await closeSharedDb();
    throw err;
  }
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
