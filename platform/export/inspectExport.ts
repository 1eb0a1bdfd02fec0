// `pau export inspect`: a benchmark run's inspect_ai eval logs, read from Postgres and written as files.
// The rows are the report's (db/queries/benchmarkReportData.ts buildReport: the same judge, the same judge
// card and the same headline estimates), the conversations the stored steps rebuilt as they were sent; the
// logs themselves are built by domain/export/inspectLog.ts. Postgres only, like `pau report`.
import fs from 'node:fs';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { PROJECT_ROOT } from '../../config/env';
import { ModelConfigError, models } from '../../config/models';
import type { Db } from '../../db/client';
import { buildReport } from '../../db/queries/benchmarkReportData';
import { loadRun } from '../../db/queries/reportRows';
import { parseRunConfig } from '../../db/runDocuments';
import { loadTranscripts } from '../../db/queries/transcriptRows';
import { datasets } from '../../db/schema/datasets';
import { messagesFromSteps } from '../../domain/episode/conversation';
import { type ExportEpisode, type InspectLogFile, inspectLogs } from '../../domain/export/inspectLog';
import type { ModelParams } from '../../domain/llm/modelParams';
import { requestParams } from '../../domain/llm/requestParams';
import { reportBaseName } from '../../domain/report/transcriptLinks';
import { ensurePrivateDir, writePrivateFile } from '../process/privateFiles';
import { inspectVersion } from './inspectVenv';

/** Why a run cannot be exported: it does not exist, is no benchmark run, or has not ended. */
export class InspectExportError extends Error {
  override name = 'InspectExportError';
}

export interface InspectExportResult {
  dir: string;
  files: { path: string; model: string; setting: string; samples: number }[];
  episodes: number;
  ms: number;
}

/** The folder a run's logs go to by default: `reports/<run>.inspect/`, beside its report. */
export function defaultInspectDir(runId: string): string {
  return path.join(PROJECT_ROOT, 'reports', `${reportBaseName(runId)}.inspect`);
}

/** Builds a run's logs (no files written); throws InspectExportError for a run that cannot be exported. */
export async function buildInspectLogs(db: Db, runId: string): Promise<InspectLogFile[]> {
  const run = await loadRun(db, runId);
  if (!run) throw new InspectExportError(`no run ${JSON.stringify(runId)} in the database`);
  if (run.kind !== 'benchmark') throw new InspectExportError(`run ${runId} is a ${run.kind} run; only benchmark runs are exported`);
  if (run.status === 'pending' || run.status === 'running' || !run.startedAt)
    throw new InspectExportError(`run ${runId} is still ${run.status}; export it when it has ended (pau bench status ${runId})`);
  const config = parseRunConfig('benchmark', run.config, runId);
  const doc = await buildReport({ runId, db });
  const loaded = new Map((await loadTranscripts(db, runId)).map((t) => [t.transcript.episodeId, t]));
  const [ds] = await db.select({ name: datasets.name, contentHash: datasets.contentHash }).from(datasets).where(eq(datasets.name, config.dataset)).limit(1);
  const episodes: ExportEpisode[] = doc.episodes.map((row) => {
    const t = loaded.get(row.episodeId);
    const judgment = t?.transcript.judgments.find((j) => j.judgeModel === doc.judgeModel);
    return {
      row,
      messages: t ? messagesFromSteps(t.steps) : [],
      steps: t?.steps.length ?? 0,
      finalDescription: t?.transcript.finalDescription ?? null,
      error: t?.transcript.error ?? null,
      rationale: judgment?.rationale ?? null,
      signature: t?.transcript.signature ?? null,
    };
  });
  const params: Record<string, ModelParams> = {};
  for (const m of config.models) params[m] = sentParams(m, config.params);
  return inspectLogs({
    run: { id: run.id, status: run.status, startedAt: run.startedAt, finishedAt: run.finishedAt },
    config,
    dataset: { name: config.dataset, contentHash: ds?.contentHash ?? null },
    judgeModel: doc.judgeModel,
    judgeCard: doc.judgeCard,
    groups: doc.summary.groups,
    distribution: doc.summary.distribution,
    episodes,
    params,
    packages: { 'pau-pipeline': packageVersion(), inspect_ai: inspectVersion() },
  });
}

/** Writes a run's logs into `dir` (default: defaultInspectDir); the same run gives the same file names, overwritten. */
export async function exportInspect(db: Db, runId: string, dir = defaultInspectDir(runId)): Promise<InspectExportResult> {
  const started = performance.now();
  const logs = await buildInspectLogs(db, runId);
  const out = path.resolve(dir);
  ensurePrivateDir(out);
  const files = logs.map((l) => {
    const p = path.join(out, l.fileName);
    writePrivateFile(p, `${JSON.stringify(l.log, null, 2)}\n`);
    return { path: p, model: l.model, setting: l.setting, samples: l.log.samples.length };
  });
  return { dir: out, files, episodes: files.reduce((a, f) => a + f.samples, 0), ms: performance.now() - started };
}

/** The params a model's turns were sent with: the registry's, then the run's (a model off the registry: the run's). */
function sentParams(model: string, overrides: ModelParams | undefined): ModelParams {
  try {
    return requestParams(models().get(model), overrides);
  } catch (err) {
    if (!(err instanceof ModelConfigError)) throw err;
    return { ...(overrides ?? {}) };
  }
}

function packageVersion(): string {
  const pkg: unknown = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8'));
  return pkg && typeof pkg === 'object' && 'version' in pkg && typeof pkg.version === 'string' ? pkg.version : 'unknown';
}
