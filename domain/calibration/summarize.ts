// The calibration suite's figures from the per-method results: the original must score 1.0 against
// itself; mutants should score < 1 on most methods (a code match that cannot tell a one-token change from
// the original measures little); constant and identity functions give the floor. Pure code.
import { z } from 'zod';
import { documentSchema } from '../common/jsonDocument';
import { MUTANT_KINDS, type MethodCalibration, type MutantKind } from './types';

export interface KindSummary {
  kind: MutantKind;
  /** Mutants of this kind that ran, over all methods. */
  mutants: number;
  /** Of those, scoring < 1 (detected by code match). */
  detected: number;
  meanCodeMatch: number | null;
  /** Methods with at least one mutant of this kind. */
  methods: number;
}

export interface CalibrationSummary {
  methods: number;
  /** Methods with a code match (at least one counted held-out input). */
  scored: number;
  excluded: { methodId: string; reason: string }[];
  /** Mean code match of the original against itself (must be 1.0) and the methods where it is not. */
  originalMean: number | null;
  originalBelowOne: string[];
  /** Methods with at least one mutant. */
  methodsWithMutants: number;
  /** Share of those where every mutant scores < 1, and where at least one does. */
  shareAllMutantsDetected: number | null;
  shareAnyMutantDetected: number | null;
  /** Share of all mutants scoring < 1. */
  shareMutantsDetected: number | null;
  byKind: KindSummary[];
  /** Mean over methods of the best constant function's code match (the floor a description-free answer reaches). */
  constantFloor: number | null;
  /** Methods where some constant function reaches code match 1. */
  constantPerfect: number;
  identityMean: number | null;
  /**
   * Mean over methods of the lookup-table baseline (the in-context examples tabulated, None elsewhere) on
   * the held-out inputs outside its table; absent in runs from before it.
   */
  lookupMean?: number | null;
  lookupMethods?: number;
  generatorErrors: number;
}

const mean = (xs: number[]) => (xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length);
const share = (n: number, d: number) => (d === 0 ? null : n / d);

export function summarizeCalibration(rows: readonly MethodCalibration[]): CalibrationSummary {
  const scored = rows.filter((r) => !r.excluded);
  const original: number[] = [];
  const below: string[] = [];
  let withMutants = 0;
  let allDetected = 0;
  let anyDetected = 0;
  let mutantsTotal = 0;
  let mutantsDetected = 0;
  const constants: number[] = [];
  let constantPerfect = 0;
  const identity: number[] = [];
  const lookup: number[] = [];
  const kinds = new Map<MutantKind, { scores: number[]; methods: Set<string> }>(MUTANT_KINDS.map((k) => [k, { scores: [], methods: new Set() }]));
  for (const r of scored) {
    const orig = r.scores.find((s) => s.kind === 'original')?.codeMatch ?? null;
    if (orig !== null) {
      original.push(orig);
      if (orig < 1) below.push(r.methodId);
    }
    const mutants = r.scores.filter((s) => (MUTANT_KINDS as readonly string[]).includes(s.kind));
    const ms = mutants.map((s) => s.codeMatch ?? 0);
    if (ms.length > 0) {
      withMutants++;
      if (ms.every((x) => x < 1)) allDetected++;
      if (ms.some((x) => x < 1)) anyDetected++;
      mutantsTotal += ms.length;
      mutantsDetected += ms.filter((x) => x < 1).length;
    }
    for (const s of mutants) {
      const k = kinds.get(s.kind as MutantKind)!;
      k.scores.push(s.codeMatch ?? 0);
      k.methods.add(r.methodId);
    }
    const cs = r.scores.filter((s) => s.kind === 'constant').map((s) => s.codeMatch ?? 0);
    if (cs.length > 0 || r.scores.length > 0) {
      const best = cs.length > 0 ? Math.max(...cs) : 0;
      constants.push(best);
      if (best === 1) constantPerfect++;
    }
    const id = r.scores.find((s) => s.kind === 'identity');
    if (id) identity.push(id.codeMatch ?? 0);
    const lk = r.scores.find((s) => s.kind === 'lookup');
    if (lk && lk.codeMatch !== null) lookup.push(lk.codeMatch);
  }
  return {
    methods: rows.length,
    scored: scored.length,
    excluded: rows.filter((r) => r.excluded).map((r) => ({ methodId: r.methodId, reason: r.excluded as string })),
    originalMean: mean(original),
    originalBelowOne: below,
    methodsWithMutants: withMutants,
    shareAllMutantsDetected: share(allDetected, withMutants),
    shareAnyMutantDetected: share(anyDetected, withMutants),
    shareMutantsDetected: share(mutantsDetected, mutantsTotal),
    byKind: MUTANT_KINDS.map((kind) => {
      const k = kinds.get(kind)!;
      return { kind, mutants: k.scores.length, detected: k.scores.filter((x) => x < 1).length, meanCodeMatch: mean(k.scores), methods: k.methods.size };
    }),
    constantFloor: mean(constants),
    constantPerfect,
    identityMean: mean(identity),
    lookupMean: mean(lookup),
    lookupMethods: lookup.length,
    generatorErrors: rows.filter((r) => r.generatorError).length,
  };
}

const pct = (x: number | null) => (x === null ? '-' : `${(100 * x).toFixed(1)}%`);

/** The figures as table rows ([control, value, what it should be]) for the CLI and the report. */
export function calibrationRows(s: CalibrationSummary): [string, string, string][] {
  return [
    ['methods scored / calibrated', `${s.scored} / ${s.methods}`, 'excluded: no held-out input counts'],
    [
      'original vs itself (mean code match)',
      pct(s.originalMean),
      `must be 100%${s.originalBelowOne.length > 0 ? `; below on ${s.originalBelowOne.length}: ${s.originalBelowOne.slice(0, 5).join(', ')}` : ''}`,
    ],
    ['methods where every mutant scores < 1', `${pct(s.shareAllMutantsDetected)} of ${s.methodsWithMutants}`, 'high: code match tells a one-token change'],
    ['methods where some mutant scores < 1', pct(s.shareAnyMutantDetected), ''],
    ['mutants scoring < 1', pct(s.shareMutantsDetected), 'some mutants are equivalent to the original'],
    ...s.byKind.map((k): [string, string, string] => [
      `  ${k.kind}`,
      `${k.detected}/${k.mutants} detected`,
      `mean code match ${pct(k.meanCodeMatch)} (${k.methods} methods)`,
    ]),
    ['best constant function (mean code match)', pct(s.constantFloor), `the floor; 100% on ${s.constantPerfect} methods`],
    ['identity function (mean code match)', pct(s.identityMean), 'a floor'],
    ...(s.lookupMean !== undefined
      ? [
          [
            'lookup table of the in-context examples (unseen held-out inputs)',
            `${pct(s.lookupMean)} of ${s.lookupMethods ?? 0}`,
            'a floor: the evidence tabulated, None elsewhere',
          ] as [string, string, string],
        ]
      : []),
  ];
}

/** A calibration run's runs.summary: its per-method rows while it runs, and the summary once it finished. */
export interface CalibrationRunSummary {
  methods?: Record<string, MethodCalibration>;
  calibration?: CalibrationSummary;
  /** How many methods failed to calibrate. */
  failedMethods?: number;
}
export const calibrationRunSummarySchema = documentSchema<CalibrationRunSummary>({
  methods: z.record(z.string(), z.looseObject({ methodId: z.string(), scores: z.array(z.unknown()) })).optional(),
  calibration: z.looseObject({ methods: z.number() }).optional(),
});
