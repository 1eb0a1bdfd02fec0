// Judge cards shipped with the benchmark, on disk: datasets/<name>/judge-cards/*.json (schema and rules:
// domain/judge/shippedCard.ts). The one reader and writer of those files, and the lookup of the one whose key
// holds for a judge and code writer on this machine (`npm start` verifies it on a sample instead of computing
// the whole card; `calibrate judge --ship` writes it).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { PROJECT_ROOT } from '../../config/env';
import { ModelConfigError, type ModelSpec, models } from '../../config/models';
import type { Db } from '../../db/client';
import { datasets } from '../../db/schema/datasets';
import { judgePromptVersion } from '../../domain/judge/card';
import { DEFAULT_JUDGE_FORMAT, type JudgeFormat } from '../../domain/judge/judgePrompt';
import { coderSamplesOf } from '../../domain/judge/mbrExec';
import {
  keyMismatch,
  SHIPPED_CARD_KIND,
  SHIPPED_CARD_VERSION,
  type ShippedCardFile,
  shippedCardFileSchema,
  type ShippedCardKey,
  shippedRowSchema,
} from '../../domain/judge/shippedCard';
import { latestJudgeCard } from '../../db/queries/judgeCards';
import { requestParams } from '../../domain/llm/requestParams';
import { sha256Hex } from '../../domain/common/hash';
import { weightsIdentity } from '../models/identity';
import { shippedCardDir, shippedCardFiles, shippedCardPath } from './shippedCardDir';

/** A path as the repository names it (absolute outside it). */
export const repoPath = (file: string): string => {
  const r = path.relative(PROJECT_ROOT, file);
  return r && !r.startsWith('..') ? r : file;
};
const rel = repoPath;

/** A shipped card file, parsed and checked, with its content's sha256; or why it was refused. */
export type ReadShippedCard = { file: string; ok: true; card: ShippedCardFile; sha256: string } | { file: string; ok: false; why: string };

export function readShippedCard(file: string): ReadShippedCard {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    return { file, ok: false, why: `unreadable (${(err as Error).message})` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { file, ok: false, why: `not JSON (${(err as Error).message})` };
  }
  const r = shippedCardFileSchema.safeParse(value);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    return { file, ok: false, why: `${issue.path.map(String).join('.') || '(file)'}: ${issue.message}` };
  }
  return { file, ok: true, card: r.data, sha256: sha256Hex(text) };
}

/** Writes a shipped card (pretty JSON, one key order), replacing the file of the same judge and coder. */
export function writeShippedCard(card: ShippedCardFile, dir?: string): string {
  const file = shippedCardPath(card.key.dataset, card.key.judgeModel, card.key.coderModel, dir);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, `${JSON.stringify(shippedCardFileSchema.parse(card), null, 1)}\n`);
  fs.renameSync(tmp, file);
  return file;
}

/** What a card's key is here: the judge's and coder's weights and sent params, the prompt version, the dataset's content. */
export async function cardKeyHere(
  db: Db,
  q: { judgeModel: string; coderModel: string; dataset: string; split: string; format?: JudgeFormat; coderSamples?: number },
): Promise<{ key: ShippedCardKey } | { why: string }> {
  let judge: ModelSpec;
  let coder: ModelSpec;
  try {
    judge = models().get(q.judgeModel);
    coder = models().get(q.coderModel);
  } catch (err) {
    if (err instanceof ModelConfigError) return { why: err.message };
    throw err;
  }
  const jw = weightsIdentity(judge);
  if ('why' in jw) return jw;
  const cw = weightsIdentity(coder);
  if ('why' in cw) return cw;
  const [ds] = await db.select({ contentHash: datasets.contentHash, status: datasets.status }).from(datasets).where(eq(datasets.name, q.dataset));
  if (!ds || ds.status !== 'ready' || !ds.contentHash) return { why: `dataset ${q.dataset} is not built here` };
  return {
    key: {
      judgeModel: q.judgeModel,
      coderModel: q.coderModel,
      judgeWeights: jw.weights,
      coderWeights: cw.weights,
      judgeParams: requestParams(judge),
      coderParams: requestParams(coder),
      promptVersion: judgePromptVersion(q.format ?? DEFAULT_JUDGE_FORMAT, coderSamplesOf(q.coderSamples)),
      dataset: q.dataset,
      datasetContentHash: ds.contentHash,
      split: q.split,
    },
  };
}

/**
 * The shipped card whose key holds here for this judge and coder, or why none does: `none` when the dataset
 * ships no card file; `ignored` with one line per file saying why (refused, or which key fields differ).
 */
export async function findShippedCard(
  db: Db,
  q: { judgeModel: string; coderModel: string; dataset: string; split: string; format?: JudgeFormat; coderSamples?: number },
  cardsDir?: string,
): Promise<{ status: 'matches'; file: string; card: ShippedCardFile; sha256: string } | { status: 'none' | 'ignored'; why: string[] }> {
  const dir = shippedCardDir(q.dataset, cardsDir);
  const files = shippedCardFiles(q.dataset, cardsDir);
  if (files.length === 0) return { status: 'none', why: [`no judge card is shipped with ${q.dataset} (${rel(dir)})`] };
  const here = await cardKeyHere(db, q);
  if ('why' in here) return { status: 'ignored', why: [`no shipped card can hold here: ${here.why}`] };
  const why: string[] = [];
  for (const file of files) {
    const r = readShippedCard(file);
    if (!r.ok) {
      why.push(`${rel(file)} refused: ${r.why}`);
      continue;
    }
    const diff = keyMismatch(r.card.key, here.key);
    if (diff.length === 0) return { status: 'matches', file, card: r.card, sha256: r.sha256 };
    why.push(`${rel(file)} is for another key: ${diff.join('; ')}`);
  }
  return { status: 'ignored', why };
}

/** What this machine is, as a shipped card's `computed.machine` says it. */
export function machineText(): string {
  return `${os.availableParallelism()} cores (${os.cpus()[0]?.model.trim() ?? 'unknown CPU'}), ${os.arch()}`;
}

/**
 * Writes the stored card of a judge and coder as the shipped card of its dataset (`calibrate judge --ship`):
 * its rows and this machine's key. Throws when there is no completed card or no key can hold elsewhere.
 */
export async function shipStoredCard(
  db: Db,
  q: { judgeModel: string; coderModel: string; dataset: string; split: string; format?: JudgeFormat; coderSamples?: number },
  dir?: string,
): Promise<{ file: string; methods: number }> {
  const here = await cardKeyHere(db, q);
  if ('why' in here) throw new Error(`no card of ${q.judgeModel} can be shipped: ${here.why}`);
  const card = await latestJudgeCard(db, {
    judgeModel: q.judgeModel,
    coderModel: q.coderModel,
    dataset: q.dataset,
    ...(q.format ? { format: q.format } : {}),
    ...(q.coderSamples ? { coderSamples: q.coderSamples } : {}),
  });
  if (!card || card.split !== q.split) throw new Error(`no completed card of ${q.judgeModel} on ${q.dataset}/${q.split} is stored here`);
  if (card.shipped)
    throw new Error(`the stored card of ${q.judgeModel} is the shipped one (${card.shipped.file}); compute one here first (calibrate judge --force)`);
  const file = writeShippedCard(
    {
      kind: SHIPPED_CARD_KIND,
      version: SHIPPED_CARD_VERSION,
      key: here.key,
      computed: { at: card.computedAt, machine: machineText(), workflowId: card.workflowId },
      rows: card.rows.map((r) => shippedRowSchema.strip().parse(r)),
    },
    dir,
  );
  return { file, methods: card.rows.length };
}
