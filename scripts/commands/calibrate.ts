// `pau calibrate [--dataset pau-v1] [--split test] [--limit N] [--window 4] [--run-id ID]`: the calibration
// suite, independent of any judge model: code match of each method's original against itself (must be
// 1.0), of small mutants of it (operator swap, constant change, off-by-one, swapped branch; generated from
// its AST in the sandbox), of constant functions (the floor) and of the identity function. Stored in the
// run's row (kind `calibration`); reports of benchmark runs on the same split show the latest one.
import { z } from 'zod';
import { workflowUiLink } from '../../config/services';
import { connectClient } from '../../config/temporal';
import { closeSharedDb, getDb } from '../../db/client';
import { calibrationRows } from '../../domain/calibration/summarize';
import { calibrationWorkflowId } from '../../domain/calibration/workflowIds';
import { printTable } from '../../domain/report/table';
import { newRunId } from '../client/bench';
import { calibrationProgress, startCalibration } from '../client/calibration';
import { defineOptions, parseCommandArgs, UsageError } from '../lib/args';

const options = defineOptions({
  dataset: z.string().min(1).default('pau-v1'),
  split: z.string().min(1).default('test'),
  limit: z.coerce.number().int().min(1).optional(),
  window: z.coerce.number().int().min(1).max(50).optional(),
  'run-id': z.string().min(1).optional(),
});

export const usage = `pau calibrate ${options.usage}`;

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, options);
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
    const timer = setInterval(() => {
      void calibrationProgress(getDb(), runId).then((p) => {
        if (!p || p.total === 0) return;
        const s = (Date.now() - started) / 1000;
        const eta = p.done > 0 ? ((p.total - p.done) * s) / p.done : null;
        process.stdout.write(`\r  methods ${p.done}/${p.total}  ${s.toFixed(0)} s${eta !== null ? `  ETA ${eta.toFixed(0)} s` : ''}   `);
      });
    }, 2000);
    const summary = await handle.result().finally(() => clearInterval(timer));
    console.log(`\ncalibrated ${summary.methods} methods in ${((Date.now() - started) / 1000).toFixed(0)} s (run ${runId})`);
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
