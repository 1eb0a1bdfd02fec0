// Reading the candidate generator's answer (a JSON string returned by mutants.py in the sandbox) and the
// call that asks for it. Pure code.
import type { CallResult } from '../sandbox/schemas';
import type { Candidate, CandidateKind } from './types';

const KINDS: readonly CandidateKind[] = ['original', 'operator swap', 'constant change', 'off-by-one', 'swapped branch', 'constant', 'identity'];

/** The argument list of `calibration_candidates(source, entry, constant_reprs)` as Python literals (JSON strings are). */
export function generatorCall(source: string, entryPoint: string, reprs: readonly string[]): string {
  return `${JSON.stringify(source)}, ${JSON.stringify(entryPoint)}, [${reprs.map((r) => JSON.stringify(r)).join(', ')}]`;
}

export function parseCandidates(result: CallResult | undefined): Candidate[] {
  if (!result) throw new Error('the generator returned nothing');
  if (!result.ok) throw new Error(`the generator raised ${result.error.type}: ${result.error.message}`);
  if (typeof result.value !== 'string') throw new Error('the generator did not return a string');
  const raw = JSON.parse(result.value) as unknown;
  if (!Array.isArray(raw)) throw new Error('the generator did not return a list');
  return raw.flatMap((c): Candidate[] => {
    const o = c as Partial<Candidate>;
    return typeof o.source === 'string' && typeof o.site === 'string' && KINDS.includes(o.kind as CandidateKind)
      ? [{ kind: o.kind as CandidateKind, site: o.site, source: o.source }]
      : [];
  });
}
