// One PAU method: the normalised form of a source record, whatever the source. This is what the `methods`
// table holds and what `dataset export` writes, one per line.
import { z } from 'zod';
import type { Analysis } from './analysis';
import { sha256Hex } from '../common/hash';
import { generateInputs, GENERATOR_VERSION, inputSpec } from '../inputs/generator';
import { FILTER_VERSION, type BuildConfig } from './config';
import { SOURCE_NAMES } from './sources';
import type { Candidate } from './types';

export const Method = z.object({
  id: z.string().min(1),
  source: z.enum(SOURCE_NAMES),
  sourceId: z.string().min(1),
  entryPoint: z.string().min(1),
  /** The `def` line the agent sees: name and parameters (annotations kept), no docstring, no body. */
  signature: z.string().startsWith('def '),
  /** Full source with its helpers; module-level statements that would run at import removed. */
  code: z.string().min(1),
  /** Exact-duplicate key: sha256 of the code without comments and docstrings, re-printed by `ast`. */
  codeHash: z.string(),
  /** Near-duplicate key: as codeHash, after renaming every bound identifier to v0, v1, ... */
  nearHash: z.string(),
  goldKind: z.enum(['docstring', 'task-text', 'instruction', 'code-only']),
  goldDescription: z.string().nullable(),
  probeInputs: z.array(z.string()),
  heldoutInputs: z.array(z.string()),
  verdict: z.enum(['pending', 'accepted', 'rejected']),
  rejectReasons: z.array(z.string()),
  meta: z.record(z.string(), z.unknown()),
});
export type Method = z.infer<typeof Method>;

export function methodId(source: string, sourceId: string): string {
  return `${source}/${sourceId}`;
}

/** Splits known inputs into probe (shown / used for in-context examples) and held-out (code match),
 * disjoint, deterministically: a seeded hash picks the held-out ones; at least one probe input stays. */
export function splitInputs(id: string, inputs: string[], heldoutFraction: number): { probe: string[]; heldout: string[] } {
  const n = inputs.length;
  const k = Math.min(Math.floor(n * heldoutFraction), Math.max(0, n - 1));
  const ranked = inputs.map((t, i) => ({ i, h: sha256Hex(`${id}\n${t}`) })).sort((a, b) => (a.h < b.h ? -1 : a.h > b.h ? 1 : a.i - b.i));
  const held = new Set(ranked.slice(0, k).map((r) => r.i));
  return { probe: inputs.filter((_, i) => !held.has(i)), heldout: inputs.filter((_, i) => held.has(i)) };
}

export interface Normalised {
  method: Method;
  /** Key of what the sandbox checks depend on; a row whose key is unchanged keeps its runtime verdict. */
  checkKey: string;
}

/** Combines a candidate and its static analysis into a Method; static rejections are recorded on it. */
/** Example calls generated from the signature, defaults and body literals, for a method whose source
 * gives none (CodeAlpaca responses without an example call): the sandbox filters then decide as usual. */
export function generatedKnownInputs(id: string, a: Analysis, cfg: Pick<BuildConfig, 'inputs'>): string[] {
  if (!cfg.inputs.generateMissing || a.reason !== 'no-known-inputs' || !a.params) return [];
  const spec = inputSpec([], { params: a.params, hints: a.hints ?? {}, literals: a.literals ?? { ints: [], strs: [] } });
  return generateInputs(spec, { count: cfg.inputs.missingCount, seedKey: id, purpose: 'known', seed: cfg.inputs.seed });
}

export function normalise(c: Candidate, a: Analysis, cfg: Pick<BuildConfig, 'heldoutFraction' | 'cruxevalGold' | 'limits' | 'inputs'>): Normalised {
  const id = methodId(c.source, c.sourceId);
  const reasons: string[] = [];
  const generated = generatedKnownInputs(id, a, cfg);
  if (!a.ok && a.reason && !(generated.length > 0 && a.reason === 'no-known-inputs')) reasons.push(a.reason);
  const gold = c.goldKind === 'docstring' ? (a.docstring ?? null) : c.gold;
  if (a.ok && c.goldKind === 'docstring' && !gold) reasons.push('no-gold');
  if (c.goldKind === 'code-only' && cfg.cruxevalGold === 'exclude') reasons.push('no-gold');
  const { probe, heldout } = splitInputs(id, generated.length > 0 ? generated : (a.inputs ?? []), cfg.heldoutFraction);
  const code = a.code ?? c.code.replace(/\r\n?/g, '\n');
  const method: Method = {
    id,
    source: c.source,
    sourceId: c.sourceId,
    entryPoint: a.entry_point ?? c.entryPoint ?? '?',
    signature: a.signature ?? `def ${a.entry_point ?? c.entryPoint ?? '?'}(...):`,
    code,
    codeHash: a.exact_hash ?? sha256Hex(code),
    nearHash: a.near_hash ?? sha256Hex(code),
    goldKind: c.goldKind,
    goldDescription: gold,
    probeInputs: probe,
    heldoutInputs: heldout,
    verdict: reasons.length ? 'rejected' : 'pending',
    rejectReasons: reasons,
    meta: {
      ...c.meta,
      ...(a.ok || reasons.length === 0 ? {} : { rejectDetail: a.detail }),
      ...(generated.length > 0 ? { inputsGenerated: generated.length } : {}),
      ...(a.dropped_inputs && Object.keys(a.dropped_inputs).length ? { droppedInputs: a.dropped_inputs } : {}),
      ...(a.stripped ? { strippedStatements: a.stripped } : {}),
      ...(a.imports?.length ? { imports: a.imports } : {}),
    },
  };
  const checkKey = sha256Hex(JSON.stringify([FILTER_VERSION, GENERATOR_VERSION, code, method.entryPoint, probe, heldout, cfg.limits, cfg.inputs]));
  return { method, checkKey };
}
