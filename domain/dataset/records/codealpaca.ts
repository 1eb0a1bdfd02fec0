// CodeAlpaca (data CC BY-NC 4.0: non-commercial): instruction/response pairs; the Python functions in the
// responses become methods, the instruction is the gold. The 20k file when present, else the 2k file.
// Known inputs come from example calls in the response and from the record's `input` field (literal
// assignments to the parameters, or one literal for a one-parameter function); see activities/dataset/analyze.py.
// Pure: the text in, the candidates out.
import { z } from 'zod';
import type { LoadResult } from '../types';
import { parseJsonArray } from './parse';

export const CodeAlpacaRecord = z.object({
  instruction: z.string(),
  input: z.string(),
  output: z.string(),
});
export type CodeAlpacaRecord = z.infer<typeof CodeAlpacaRecord>;

const PY_DEF = /^[ \t]*def[ \t]+[A-Za-z_]\w*[ \t]*\(/m;

export function codeAlpacaFromText(text: string, files: LoadResult['files'] = [], variant = '2k'): LoadResult {
  const { records, rejects, raw } = parseJsonArray('codealpaca', text, CodeAlpacaRecord);
  const out: LoadResult = { source: 'codealpaca', files, raw, rejects, candidates: [] };
  for (const { index, record } of records) {
    const sourceId = `${variant}:${index}`;
    if (!PY_DEF.test(record.output)) {
      out.rejects.push({ source: 'codealpaca', sourceId, reason: 'no-python-function', detail: 'the response has no `def` line' });
      continue;
    }
    out.candidates.push({
      source: 'codealpaca',
      sourceId,
      code: record.output,
      inputs: { kind: 'examples', input: record.input },
      goldKind: 'instruction',
      gold: record.instruction.trim(),
      meta: record.input.trim() ? { instructionInput: record.input } : {},
    });
  }
  return out;
}
