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
import { z } from 'zod';
import { sandboxWorkSchema } from '../../domain/sandbox/schemas';
import { workLine } from '../../domain/sandbox/work';
import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { datasetMethods, methods } from '../../db/schema/datasets';
import { watchWorkflow } from './watchWorkflow';

export { datasetWorkflowId };

export const PAPER_TEST_SIZE = 741;

/** Starts a build; the source directory is this process's (PAU_DATA_DIR) unless the config names one. */
export async function startDatasetBuild(client: Client, config: BuildConfigInput & { name: string }, opts: { first?: number } = {}) {
  const handle = await startDatasetBuildWorkflow(client, { ...config, dataDir: path.resolve(config.dataDir ?? env().PAU_DATA_DIR) }, opts);
  return { handle, workflowId: handle.workflowId, uiLink: workflowUiLink(handle.workflowId) };
}

export function progressLine(p: DatasetBuildProgress, startedMs: number, width = 30): string {
  if (p.phase === 'preparing') return `preparing: loading sources and analysing code ...`;
  if (p.phase === 'finalizing') return `finalizing: dedup, split, hash ...`;
  const frac = p.total ? p.checked / p.total : 1;
  const filled = Math.round(frac * width);
  const elapsed = (Date.now() - startedMs) / 1000;
  const eta = p.checked > 0 && p.total > p.checked ? ((elapsed / p.checked) * (p.total - p.checked)).toFixed(0) + 's' : p.total ? '-' : '0s';
  return `checking [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${p.checked}/${p.total} (${p.accepted} ok, ${p.rejected} rejected; ${p.alreadyChecked} cached, ${p.staticRejected} static rejects${p.work ? `; ${p.work.calls.toLocaleString('en-US')} calls, ${p.work.timeouts} timed out` : ''})  ETA ${eta}`;
}

/** The line on a build's sandbox work from its workflow result (BuildResult), or null for a result without it. */
export function buildWorkLine(result: unknown): string | null {
  const r = z.object({ work: sandboxWorkSchema }).safeParse(result);
  return r.success ? workLine(r.data.work) : null;
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

export interface WatchBuildOptions {
  /** Every progress reading (npm start: to see when the test-split head is checked). */
  onProgress?: (p: DatasetBuildProgress) => void;
  /**
   * While true, another line is drawn in place (the benchmark's): the build's line then goes out whole,
   * as `[dataset] ...` every 15 s, clearing the row first so the other line is redrawn under it.
   */
  beside?: () => boolean;
}

/**
 * Waits for a build, drawing its progress line on stderr (in place on a terminal, every 10 s otherwise)
 * from the workflow's `datasetProgress` query. Resolves or rejects with the workflow's result.
 */
export async function watchDatasetBuild(handle: WorkflowHandle, started = Date.now(), opts: WatchBuildOptions = {}): Promise<unknown> {
  let checkingSince: number | undefined;
  const line = async () => {
    const p = await handle.query<DatasetBuildProgress>('datasetProgress'); // throws until a worker has started it
    opts.onProgress?.(p);
    if (p.phase === 'checking') checkingSince ??= Date.now() - 1000;
    return progressLine(p, checkingSince ?? started);
  };
  return watchWorkflow(handle, line, {
    out: process.stderr,
    pollMs: { tty: 1000, plain: 1000 },
    plainMinIntervalMs: 10_000,
    ...(opts.beside ? { beside: { active: opts.beside, prefix: '[dataset]', everyMs: 15_000 } } : {}),
  });
}

/** The accepted ones of `ids`, in their order (a build's head, once checked). */
export async function acceptedOf(db: Db, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db.select({ id: methods.id, verdict: methods.verdict }).from(methods).where(inArray(methods.id, ids));
  const accepted = new Set(rows.filter((r) => r.verdict === 'accepted').map((r) => r.id));
  return ids.filter((id) => accepted.has(id));
}

/**
 * A build started with `first`, followed: `head` resolves with the first `first` accepted methods of the
 * likeliest test-split head as soon as that head is checked (fewer, or none, if the sandbox rejected
 * too many of it, or the build ended first), `done` with the build's outcome.
 */
export function followBuildWithHead(
  db: Db,
  handle: WorkflowHandle,
  first: number,
  opts: Pick<WatchBuildOptions, 'beside'> = {},
): { head: Promise<string[]>; done: Promise<unknown> } {
  let headIds: string[] | undefined;
  let resolveHead: (ids: string[] | undefined) => void = () => undefined;
  const checked = new Promise<string[] | undefined>((r) => {
    resolveHead = r;
  });
  const done = watchDatasetBuild(handle, Date.now(), {
    ...opts,
    onProgress: (p) => {
      if (p.head?.checked && !headIds) {
        headIds = p.head.ids;
        resolveHead(headIds);
      }
    },
  });
  done.then(
    () => resolveHead(undefined),
    () => resolveHead(undefined),
  );
  const head = checked.then(async (ids) => (ids ? (await acceptedOf(db, ids)).slice(0, first) : []));
  return { head, done };
}

/**
 * After the build: whether the methods a benchmark ran on before it ended are the finished test split's
 * first ones (likelyTestHead's guess; a duplicate, a behaviour cluster or a quota can move one).
 */
export async function headAgainstSplit(db: Db, name: string, ids: string[]): Promise<{ same: boolean; line: string }> {
  const rows = await db
    .select({ id: datasetMethods.methodId, split: datasetMethods.split, position: datasetMethods.position })
    .from(datasetMethods)
    .where(and(eq(datasetMethods.datasetName, name), inArray(datasetMethods.methodId, ids)));
  const at = new Map(rows.map((r) => [r.id, r]));
  const same = ids.every((id, i) => at.get(id)?.split === 'test' && at.get(id)?.position === i);
  const where = ids.map((id) => {
    const r = at.get(id);
    return `${id} (${r ? `${r.split} #${r.position}` : 'not in the dataset'})`;
  });
  return {
    same,
    line: same
      ? `the benchmark's ${ids.length} method${ids.length === 1 ? '' : 's'} are the finished test split's first ${ids.length}, as checked first: ${ids.join(', ')}`
      : `NOTE: the benchmark ran before the build ended on ${where.join(', ')}; the finished split moved ${ids.length === 1 ? 'it' : 'some'} (duplicates, behaviour clusters or source quotas), so this run is not the test split's first ${ids.length}`,
  };
}
