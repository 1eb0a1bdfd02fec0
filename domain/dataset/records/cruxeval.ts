// CRUXEval (MIT): 800 functions named `f`, each with one input (argument text) and its output. There is no
// description: the gold is configurable (docs/datasets.md); by default the judge compares with the code.
// Pure: the text in, the candidates out.
import { z } from 'zod';
import type { LoadResult } from '../types';
import { parseJsonLines } from './parse';

export const CruxEvalRecord = z.object({
  id: z.string().min(1),
  code: z.string(),
  input: z.string(),
  output: z.string(),
});
export type CruxEvalRecord = z.infer<typeof CruxEvalRecord>;

export function cruxEvalFromText(text: string, files: LoadResult['files'] = []): LoadResult {
  const { records, rejects, raw } = parseJsonLines('cruxeval', text, CruxEvalRecord);
  return {
    source: 'cruxeval',
    files,
    raw,
    rejects,
    candidates: records.map((r) => ({
      source: 'cruxeval' as const,
      sourceId: r.id,
      code: r.code,
      entryPoint: 'f',
      inputs: { kind: 'call_args' as const, args: [r.input] },
      goldKind: 'code-only' as const,
      gold: null,
      meta: { expectedOutput: r.output },
    })),
  };
}
