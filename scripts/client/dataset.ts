// Client side of dataset builds: start BuildDatasetWorkflow, follow its progress, format its summary.
// Shared by `pau dataset` and tests.
import path from 'node:path';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { env } from '../../config/env';
import { datasetWorkflowId, startDatasetBuild as startDatasetBuildWorkflow } from './starters';
import { workflowUiLink } from '../../config/services';
import type { BuildConfigInput } from '../../domain/dataset/config';
import { SOURCE_NAMES } from '../../domain/dataset/sources';
import type { BuildSummary } from '../../domain/dataset/summary';
import type { DatasetBuildProgress } from '../../workflows/dataset/buildDatasetWorkflow';
import { formatTable } from '../../domain/report/table';

export { datasetWorkflowId };

export const PAPER_TEST_SIZE = 741;

/** Starts a build; the source directory is this process's (PAU_DATA_DIR) unless the config names one. */
export async function startDatasetBuild(client: Client, config: BuildConfigInput & { name: string }) {
  const handle = await startDatasetBuildWorkflow(client, { ...config, dataDir: path.resolve(config.dataDir ?? env().PAU_DATA_DIR) });
  return { handle, workflowId: handle.workflowId, uiLink: workflowUiLink(handle.workflowId) };
}

export function progressLine(p: DatasetBuildProgress, startedMs: number, width = 30): string {
  if (p.phase === 'preparing') return `preparing: loading sources and analysing code ...`;
  if (p.phase === 'finalizing') return `finalizing: dedup, split, hash ...`;
  const frac = p.total ? p.checked / p.total : 1;
  const filled = Math.round(frac * width);
  const elapsed = (Date.now() - startedMs) / 1000;
  const eta = p.checked > 0 && p.total > p.checked ? ((elapsed / p.checked) * (p.total - p.checked)).toFixed(0) + 's' : p.total ? '-' : '0s';
  return `checking [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${p.checked}/${p.total} (${p.accepted} ok, ${p.rejected} rejected; ${p.alreadyChecked} cached, ${p.staticRejected} static rejects)  ETA ${eta}`;
}

export function formatSummary(s: BuildSummary): string {
  // jsonb does not keep key order: list sources in their canonical order.
  const rank = (n: string) => (SOURCE_NAMES as readonly string[]).indexOf(n) + 1 || 99;
  const sources = Object.entries(s.sources).sort(([a], [b]) => rank(a) - rank(b));
  const tot = { raw: 0, acc: 0, rej: 0, test: 0, val: 0, train: 0 };
  const rows = sources.map(([name, x]) => {
    const rej = Object.values(x.rejected).reduce((a, b) => a + b, 0);
    tot.raw += x.raw;
    tot.acc += x.accepted;
    tot.rej += rej;
    tot.test += x.splits.test;
    tot.val += x.splits.validation;
    tot.train += x.splits.train;
    return [name, x.raw, x.accepted, rej, x.splits.test, x.splits.validation, x.splits.train];
  });
  rows.push(['total', tot.raw, tot.acc, tot.rej, tot.test, tot.val, tot.train]);
  const reasons = new Set(sources.flatMap(([, x]) => Object.keys(x.rejected)));
  const reasonRows = [...reasons]
    .sort()
    .map((r) => [r, ...sources.map(([, x]) => x.rejected[r] ?? 0), sources.reduce((n, [, x]) => n + (x.rejected[r] ?? 0), 0)]);
  const lines = [
    `dataset ${s.name}  ${s.contentHash ?? '(not finalised)'}`,
    '',
    formatTable(['source', 'raw', 'accepted', 'rejected', 'test', 'validation', 'train'], rows),
    '',
    'rejected by reason:',
    formatTable(['reason', ...sources.map(([n]) => n), 'total'], reasonRows),
    '',
    `test split: ${s.splits.test} methods (paper: ${PAPER_TEST_SIZE}${s.splits.test === PAPER_TEST_SIZE ? ', matched' : `, ${s.splits.test - PAPER_TEST_SIZE > 0 ? '+' : ''}${s.splits.test - PAPER_TEST_SIZE}`}); requested test ${s.requested.test}, validation ${s.requested.validation}`,
  ];
  if (s.scheme) lines.push(`split scheme: ${s.scheme}`);
  const generated = sources.filter(([, x]) => x.inputsGenerated).map(([n, x]) => `${n} ${x.inputsGenerated}`);
  if (generated.length) lines.push(`accepted with generated example calls (the source gave none): ${generated.join(', ')}`);
  if (s.behaviour) {
    const b = s.behaviour;
    lines.push(
      `behaviour near-duplicates: ${b.fingerprinted} methods fingerprinted, ${b.clusters} clusters holding ${b.clustered} methods (${b.crossSource} across sources), each kept in one split; a behaviour-blind split would have cut ${b.wouldCross}; test entry-point names also in train/validation: ${b.testNamesAlsoTrain}`,
    );
  }
  if (s.heldout) {
    lines.push('', 'code match (held-out inputs) by split:');
    const reasons = [...new Set(Object.values(s.heldout).flatMap((h) => Object.keys(h.excluded)))].sort();
    lines.push(
      formatTable(
        ['split', 'eligible', ...reasons.map((r) => `excluded: ${r}`), 'own held-out', 'generated/method'],
        (['test', 'validation', 'train'] as const).map((k) => {
          const h = s.heldout![k];
          const n = h.eligible + Object.values(h.excluded).reduce((a, b) => a + b, 0);
          return [k, h.eligible, ...reasons.map((r) => h.excluded[r] ?? 0), h.withOwnHeldout, (h.generated / Math.max(1, n)).toFixed(1)];
        }),
      ),
    );
  }
  if (s.shortfall) lines.push(`NOTE: ${s.shortfall}`);
  if (s.error) lines.push(`ERROR: ${s.error}`);
  return lines.join('\n');
}

/**
 * Waits for a build, drawing its progress line on stderr (in place on a terminal, every 10 s otherwise)
 * from the workflow's `datasetProgress` query. Resolves or rejects with the workflow's result.
 */
export async function watchDatasetBuild(handle: WorkflowHandle, started = Date.now()): Promise<unknown> {
  const tty = process.stderr.isTTY;
  let lastPrinted = 0;
  let done = false;
  let checkingSince: number | undefined;
  const result = handle.result().finally(() => (done = true));
  result.catch(() => undefined);
  while (!done) {
    await new Promise((r) => setTimeout(r, 1000));
    if (done) break;
    let p: DatasetBuildProgress;
    try {
      p = await handle.query<DatasetBuildProgress>('datasetProgress');
    } catch {
      continue; // not started on a worker yet
    }
    if (p.phase === 'checking') checkingSince ??= Date.now() - 1000;
    const line = progressLine(p, checkingSince ?? started);
    if (tty) process.stderr.write(`\r\x1b[2K${line}`);
    else if (Date.now() - lastPrinted > 10_000) {
      process.stderr.write(`${line}\n`);
      lastPrinted = Date.now();
    }
  }
  if (tty) process.stderr.write('\n');
  return result;
}
