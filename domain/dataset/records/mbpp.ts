// MBPP (CC BY 4.0): the full file (974 problems) and the hand-verified sanitized subset (427). One method
// per task_id: the sanitized code and prompt when the task is in the subset (cleaner), else the full
// record's; the known inputs are the union of both files' test asserts (and the full file's challenge tests).
// Pure: the texts in, the candidates out.
import { z } from 'zod';
import type { LoadResult } from '../types';
import { parseJsonArray, parseJsonLines } from './parse';

export const MbppRecord = z.object({
  task_id: z.number().int(),
  text: z.string(),
  code: z.string(),
  test_list: z.array(z.string()).min(1),
  test_setup_code: z.string().default(''),
  challenge_test_list: z.array(z.string()).default([]),
});
export type MbppRecord = z.infer<typeof MbppRecord>;

export const MbppSanitizedRecord = z.object({
  task_id: z.number().int(),
  prompt: z.string(),
  code: z.string(),
  test_list: z.array(z.string()).min(1),
  test_imports: z.array(z.string()).default([]),
  source_file: z.string().optional(),
});
export type MbppSanitizedRecord = z.infer<typeof MbppSanitizedRecord>;

export function mbppFromText(fullText: string, sanitizedText: string | null, files: LoadResult['files'] = []): LoadResult {
  const full = parseJsonLines('mbpp', fullText, MbppRecord);
  const sanitized = sanitizedText === null ? { records: [], rejects: [], raw: 0 } : parseJsonArray('mbpp', sanitizedText, MbppSanitizedRecord);
  const sanitizedById = new Map(sanitized.records.map(({ record }) => [record.task_id, record]));
  const seen = new Set<number>();
  const candidates: LoadResult['candidates'] = [];
  for (const r of full.records) {
    if (seen.has(r.task_id)) continue;
    seen.add(r.task_id);
    const s = sanitizedById.get(r.task_id);
    const asserts = [...new Set([...(s?.test_list ?? []), ...r.test_list, ...r.challenge_test_list])];
    candidates.push({
      source: 'mbpp',
      sourceId: String(r.task_id),
      code: s?.code ?? r.code,
      inputs: { kind: 'asserts', asserts },
      goldKind: 'task-text',
      gold: (s?.prompt ?? r.text).trim(),
      meta: { sanitized: s !== undefined, officialSplit: mbppOfficialSplit(r.task_id), ...(r.test_setup_code ? { testSetupCode: true } : {}) },
    });
  }
  return {
    source: 'mbpp',
    files,
    raw: full.raw,
    candidates,
    rejects: [...full.rejects, ...sanitized.rejects.map((x) => ({ ...x, sourceId: `sanitized:${x.sourceId}` }))],
  };
}

/** google-research's split by task_id (recorded in meta; PAU makes its own split). */
export function mbppOfficialSplit(taskId: number): string {
  if (taskId <= 10) return 'prompt';
  if (taskId <= 510) return 'test';
  if (taskId <= 600) return 'validation';
  return 'train';
}
