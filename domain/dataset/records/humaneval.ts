// HumanEval (MIT): 164 problems; code = prompt + canonical_solution; inputs from `check(candidate)`;
// gold = the entry point's docstring (filled in after analysis). Pure: the text in, the candidates out.
import { z } from 'zod';
import type { LoadResult } from '../types';
import { parseJsonLines } from './parse';

export const HumanEvalRecord = z.object({
  task_id: z.string().min(1),
  prompt: z.string(),
  entry_point: z.string().min(1),
  canonical_solution: z.string(),
  test: z.string(),
});
export type HumanEvalRecord = z.infer<typeof HumanEvalRecord>;

export function humanEvalFromText(text: string, file = { path: 'HumanEval.jsonl', sha256: '' }): LoadResult {
  const { records, rejects, raw } = parseJsonLines('humaneval', text, HumanEvalRecord);
  return {
    source: 'humaneval',
    files: [file],
    raw,
    rejects,
    candidates: records.map((r) => ({
      source: 'humaneval' as const,
      sourceId: r.task_id,
      code: r.prompt + r.canonical_solution,
      entryPoint: r.entry_point,
      inputs: { kind: 'humaneval' as const, test: r.test },
      goldKind: 'docstring' as const,
      gold: null,
      meta: {},
    })),
  };
}
