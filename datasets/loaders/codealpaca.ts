// CodeAlpaca (data CC BY-NC 4.0: non-commercial): instruction/response pairs; the Python functions in the
// responses become methods, the instruction is the gold. The 20k file when present, else the 2k file.
// Known inputs come from example calls in the response and from the record's `input` field (literal
// assignments to the parameters, or one literal for a one-parameter function); see python/analyze.py.
import fs from 'node:fs';
import { z } from 'zod';
import { isLocallyAvailable, locateSourceFile, type LocateOptions } from '../fetch';
import { SOURCE_FILES } from '../sources';
import type { LoadResult } from '../types';
import { parseJsonArray } from './parse';

export const CodeAlpacaRecord = z.object({
  instruction: z.string(),
  input: z.string(),
  output: z.string(),
});
export type CodeAlpacaRecord = z.infer<typeof CodeAlpacaRecord>;

export type CodeAlpacaVariant = 'auto' | '20k' | '2k';

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

/** `auto`: the 20k file if a copy is here or cached, else the 2k file (downloaded only if neither is here). */
export async function loadCodeAlpaca(opts: LocateOptions, variant: CodeAlpacaVariant = 'auto'): Promise<LoadResult> {
  let spec = variant === '2k' ? SOURCE_FILES.codealpaca2k : SOURCE_FILES.codealpaca20k;
  if (variant === 'auto' && !isLocallyAvailable(SOURCE_FILES.codealpaca20k, opts) && isLocallyAvailable(SOURCE_FILES.codealpaca2k, opts))
    spec = SOURCE_FILES.codealpaca2k;
  let f: string;
  try {
    f = await locateSourceFile(spec, opts);
  } catch (err) {
    if (variant !== 'auto' || spec === SOURCE_FILES.codealpaca2k) throw err;
    spec = SOURCE_FILES.codealpaca2k;
    f = await locateSourceFile(spec, opts);
  }
  const which = spec === SOURCE_FILES.codealpaca2k ? '2k' : '20k';
  return codeAlpacaFromText(fs.readFileSync(f, 'utf8'), [{ path: spec.path, sha256: spec.sha256 }], which);
}
